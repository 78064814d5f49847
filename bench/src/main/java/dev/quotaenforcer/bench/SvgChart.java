package dev.quotaenforcer.bench;

import java.util.List;
import java.util.Locale;

/** Draws a scenario's charts as one hand-written SVG of horizontal bars, so the report needs no charting library. */
public final class SvgChart {

    static final int WIDTH = 760;
    static final int LABEL_WIDTH = 250;
    static final int BAR_AREA = 360;
    static final int BAR_HEIGHT = 18;
    static final int ROW = 24;
    private static final int TITLE = 28;
    private static final int GAP = 18;

    private SvgChart() {
    }

    public static String render(String title, List<Chart> charts) {
        int height = TITLE + GAP;
        for (Chart chart : charts) {
            height += TITLE + chart.bars().size() * ROW + GAP;
        }
        StringBuilder svg = new StringBuilder();
        svg.append(String.format(Locale.ROOT,
                "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" "
                        + "font-family=\"sans-serif\" font-size=\"12\">%n", WIDTH, height, WIDTH, height));
        svg.append(String.format(Locale.ROOT, "<rect width=\"%d\" height=\"%d\" fill=\"white\"/>%n", WIDTH, height));
        svg.append(text(10, 20, escape(title), "font-size=\"15\" font-weight=\"bold\""));
        int y = TITLE + GAP;
        for (Chart chart : charts) {
            y = chart(svg, chart, y);
        }
        svg.append("</svg>\n");
        return svg.toString();
    }

    private static int chart(StringBuilder svg, Chart chart, int top) {
        svg.append(text(10, top + 14, escape(chart.title() + " (" + chart.unit() + ")"), "font-weight=\"bold\""));
        double scale = scaleOf(chart);
        int y = top + TITLE;
        for (Chart.Bar bar : chart.bars()) {
            double width = bar.value() * scale;
            svg.append(text(10, y + 13, escape(bar.label()), ""));
            svg.append(String.format(Locale.ROOT,
                    "<rect class=\"bar\" x=\"%d\" y=\"%d\" width=\"%.1f\" height=\"%d\" fill=\"#4472c4\"/>%n",
                    LABEL_WIDTH, y, width, BAR_HEIGHT));
            double end = width;
            if (bar.error() > 0) {
                double low = Math.max(0, bar.value() - bar.error()) * scale;
                end = (bar.value() + bar.error()) * scale;
                svg.append(String.format(Locale.ROOT,
                        "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"black\"/>%n",
                        LABEL_WIDTH + low, y + BAR_HEIGHT / 2, LABEL_WIDTH + end, y + BAR_HEIGHT / 2));
            }
            String value = Numbers.of(bar.value()) + (bar.error() > 0 ? " ± " + Numbers.of(bar.error()) : "");
            svg.append(text((int) (LABEL_WIDTH + end + 6), y + 13, escape(value), ""));
            y += ROW;
        }
        return y + GAP;
    }

    /** Pixels per unit: the longest bar (with its error) fills the bar area; an all-zero chart draws nothing. */
    static double scaleOf(Chart chart) {
        double max = 0;
        for (Chart.Bar bar : chart.bars()) {
            max = Math.max(max, bar.value() + Math.max(0, bar.error()));
        }
        return max > 0 ? BAR_AREA / max : 0;
    }

    private static String text(int x, int y, String content, String attributes) {
        return String.format(Locale.ROOT, "<text x=\"%d\" y=\"%d\" %s>%s</text>%n", x, y, attributes, content);
    }

    static String escape(String text) {
        return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("\"", "&quot;");
    }
}
