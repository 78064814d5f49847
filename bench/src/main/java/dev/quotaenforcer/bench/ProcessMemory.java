package dev.quotaenforcer.bench;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Memory figures of another process, read from what Linux and the JDK's {@code jcmd} print: the
 * resident set of {@code /proc/<pid>/status}, heap and metaspace of {@code jcmd <pid> GC.heap_info}, and the
 * reachable heap of {@code jcmd <pid> GC.class_histogram}.
 */
final class ProcessMemory {

    private static final Pattern HEAP = Pattern.compile("heap\\s+total (\\d+)K, used (\\d+)K");
    private static final Pattern HISTOGRAM_TOTAL = Pattern.compile("(?m)^Total\\s+\\d+\\s+(\\d+)\\s*$");
    private static final Pattern METASPACE = Pattern.compile("Metaspace\\s+used (\\d+)K, committed (\\d+)K");

    private ProcessMemory() {
    }

    /** Resident set now and at its peak, in bytes. */
    record Resident(long rssBytes, long peakBytes) {
    }

    /** Heap committed and used, and metaspace committed (0 where the JDK does not print it), in bytes. */
    record Heap(long committedBytes, long usedBytes, long metaspaceCommittedBytes) {
    }

    /** {@code VmRSS} and {@code VmHWM} of a {@code /proc/<pid>/status} text (which gives them in kB). */
    static Resident parseStatus(String status) {
        return new Resident(kilobytes(status, "VmRSS:") * 1024, kilobytes(status, "VmHWM:") * 1024);
    }

    private static long kilobytes(String status, String field) {
        for (String line : status.split("\n")) {
            if (line.startsWith(field)) {
                String value = line.substring(field.length()).trim();
                if (!value.endsWith(" kB")) {
                    throw new IllegalArgumentException("unexpected unit in " + line);
                }
                return Long.parseLong(value.substring(0, value.length() - 3).trim());
            }
        }
        throw new IllegalArgumentException("no " + field + " in process status");
    }

    /** The heap line of any collector ("garbage-first heap total 524288K, used 1234K") and the metaspace line. */
    static Heap parseHeapInfo(String heapInfo) {
        Matcher heap = HEAP.matcher(heapInfo);
        if (!heap.find()) {
            throw new IllegalArgumentException("no heap figures in " + heapInfo);
        }
        Matcher metaspace = METASPACE.matcher(heapInfo);
        long metaspaceCommitted = metaspace.find() ? Long.parseLong(metaspace.group(2)) * 1024 : 0;
        return new Heap(Long.parseLong(heap.group(1)) * 1024, Long.parseLong(heap.group(2)) * 1024, metaspaceCommitted);
    }

    /** The bytes of all objects in the total line of {@code jcmd <pid> GC.class_histogram}. */
    static long histogramTotal(String histogram) {
        Matcher total = HISTOGRAM_TOTAL.matcher(histogram);
        if (!total.find()) {
            throw new IllegalArgumentException("no total in the class histogram");
        }
        return Long.parseLong(total.group(1));
    }
}
