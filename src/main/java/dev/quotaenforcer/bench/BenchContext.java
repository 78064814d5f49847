package dev.quotaenforcer.bench;

import java.nio.file.Path;

/**
 * What every scenario runs with: quick or full size, the seed of any generated traffic, where it may
 * leave files beside the report, and where it tells the user how far it got.
 */
public record BenchContext(boolean quick, long seed, Path outDir, Progress progress) {
}
