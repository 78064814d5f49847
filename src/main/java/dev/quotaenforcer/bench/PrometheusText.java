package dev.quotaenforcer.bench;

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
}
