package dev.quotaenforcer;

import java.nio.file.Path;

/** The repository's own files (topics/, schemas/, deploy/, docs/, Dockerfile) as tests in any module find them. */
public final class RepositoryFiles {

    private RepositoryFiles() {
    }

    /** A path under the repository's root: Maven passes it as {@code repo.root}; a module's parent otherwise. */
    public static Path path(String first, String... more) {
        return Path.of(System.getProperty("repo.root", ".."), first).resolve(Path.of("", more));
    }
}
