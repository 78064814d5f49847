package dev.quotaenforcer.bench;

import com.sun.management.HotSpotDiagnosticMXBean;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.stream.Stream;

/**
 * The machine a report's absolute figures were measured on. The load average at the start is
 * kept because the machines this runs on are often shared, which makes absolute figures noisy.
 */
public record Hardware(int cores, String cpu, String jvm, String os, long maxHeapMb, double loadAverage) {

    private static final Path CPUINFO = Path.of("/proc/cpuinfo");

    public static Hardware detect() {
        return new Hardware(Runtime.getRuntime().availableProcessors(), cpuModel(CPUINFO),
                System.getProperty("java.vm.name") + " " + System.getProperty("java.runtime.version")
                        + (hugePages() ? " (heap in transparent huge pages)" : ""),
                System.getProperty("os.name") + " " + System.getProperty("os.version") + " " + System.getProperty("os.arch"),
                Runtime.getRuntime().maxMemory() / (1024 * 1024),
                ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage());
    }

    /** Whether this JVM asked for its heap in transparent huge pages, which moves the enforcer's figures (docs/tuning.md). */
    static boolean hugePages() {
        try {
            HotSpotDiagnosticMXBean hotspot = ManagementFactory.getPlatformMXBean(HotSpotDiagnosticMXBean.class);
            return hotspot != null && Boolean.parseBoolean(hotspot.getVMOption("UseTransparentHugePages").getValue());
        } catch (IllegalArgumentException e) {
            // Not a HotSpot JVM: it has no such option.
            return false;
        }
    }

    /** The first {@code model name} of a cpuinfo file, or "unknown CPU" where there is none (not Linux). */
    static String cpuModel(Path cpuinfo) {
        if (!Files.isReadable(cpuinfo)) {
            return "unknown CPU";
        }
        try (Stream<String> lines = Files.lines(cpuinfo)) {
            return lines.filter(line -> line.startsWith("model name"))
                    .map(line -> line.substring(line.indexOf(':') + 1).trim())
                    .findFirst().orElse("unknown CPU");
        } catch (IOException e) {
            return "unknown CPU";
        }
    }

    /** One line for the report's header. */
    public String describe() {
        return String.format(Locale.ROOT, "%d cores (%s), %s, %s, max heap %d MiB, load average %.2f at start",
                cores, cpu, jvm, os, maxHeapMb, loadAverage);
    }
}
