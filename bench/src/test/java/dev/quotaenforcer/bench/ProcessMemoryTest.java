package dev.quotaenforcer.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;

/** The state scenario reads another process's memory from what Linux and jcmd print. */
class ProcessMemoryTest {

    private static final String STATUS = """
            Name:\tjava
            Umask:\t0022
            State:\tS (sleeping)
            Pid:\t4242
            VmPeak:\t 9054812 kB
            VmSize:\t 8989276 kB
            VmHWM:\t  803124 kB
            VmRSS:\t  761052 kB
            RssAnon:\t  722944 kB
            Threads:\t52
            """;

    @Test
    void shouldReadResidentAndPeakResidentSetInBytes() {
        assertEquals(new ProcessMemory.Resident(761_052L * 1024, 803_124L * 1024), ProcessMemory.parseStatus(STATUS));
    }

    @Test
    void shouldRejectAStatusWithoutResidentSet() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> ProcessMemory.parseStatus("Name:\tjava\nVmHWM:\t 10 kB\n"));
        assertEquals("no VmRSS: in process status", e.getMessage());
    }

    @Test
    void shouldReadHeapAndMetaspaceOfG1HeapInfo() {
        String heapInfo = """
                4242:
                 garbage-first heap   total 524288K, used 213456K [0x00000000e0000000, 0x0000000100000000)
                  region size 1024K, 120 young (122880K), 3 survivors (3072K)
                 Metaspace       used 61234K, committed 62080K, reserved 1114112K
                  class space    used 7321K, committed 7680K, reserved 1048576K
                """;

        assertEquals(new ProcessMemory.Heap(524_288L * 1024, 213_456L * 1024, 62_080L * 1024),
                ProcessMemory.parseHeapInfo(heapInfo));
    }

    @Test
    void shouldRejectOutputWithoutHeapFigures() {
        assertThrows(IllegalArgumentException.class, () -> ProcessMemory.parseHeapInfo("4242:\nAttach failed"));
    }

    @Test
    void shouldReadTheTotalOfAClassHistogram() {
        String histogram = """
                509:
                 num     #instances         #bytes  class name (module)
                -------------------------------------------------------
                   1:        400337       29990592  [B (java.base@17.0.15)
                   2:        138936        3334464  org.apache.kafka.common.utils.Bytes
                4124:             1             16  sun.util.resources.cldr.provider.CLDRLocaleDataMetaInfo (jdk.localedata@17.0.15)
                Total       1458724       64503176
                """;

        assertEquals(64_503_176L, ProcessMemory.histogramTotal(histogram));
    }
}
