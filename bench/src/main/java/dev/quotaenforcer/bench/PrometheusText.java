package dev.quotaenforcer.bench;

import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Reads figures out of a Prometheus text exposition, as the enforcer's {@code /metrics} serves it. */
final class PrometheusText {

    private PrometheusText() {
    }

    /** The sum of every sample of {@code metric}, whatever its labels; 0 when it has none. */
    static double sum(String text, String metric) {
        double sum = 0;
        for (String line : text.split("\n")) {
            if (line.startsWith(metric + "{") || line.startsWith(metric + " ")) {
                sum += Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
            }
        }
        return sum;
    }

    /**
     * The samples of {@code metric} summed by their value of {@code label} (as written, escapes kept), in
     * the order of those values; a sample without the label is left out.
     */
    static Map<String, Double> sumBy(String text, String metric, String label) {
        // A label value is quoted with backslash escapes, and may hold a comma, a brace or another label's name.
        Pattern value = Pattern.compile("[{,]" + Pattern.quote(label) + "=\"((?:[^\"\\\\]|\\\\.)*)\"");
        Map<String, Double> sums = new TreeMap<>();
        for (String line : text.split("\n")) {
            if (line.startsWith(metric + "{")) {
                Matcher matcher = value.matcher(line.substring(0, line.lastIndexOf(' ')));
                if (matcher.find()) {
                    sums.merge(matcher.group(1), Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1)), Double::sum);
                }
            }
        }
        return sums;
    }
}
