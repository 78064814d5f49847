package dev.quotaenforcer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/** The user documentation's relative links (README, docs/, schemas/, deploy/) reach a file, and a heading where they name one. */
class DocumentationLinksTest {

    private static final Pattern LINK = Pattern.compile("\\]\\(([^)\\s]+)\\)");
    private static final Pattern HEADING = Pattern.compile("(?m)^#{1,6} (.+)$");
    private static final Pattern CODE_BLOCK = Pattern.compile("(?s)```.*?```");

    @Test
    void everyRelativeLinkAndAnchorInTheDocumentationResolves() throws IOException {
        List<Path> pages = pages();
        assertTrue(pages.size() >= 15, "README and the pages under docs/, schemas/ and deploy/: " + pages);
        List<String> broken = new ArrayList<>();
        for (Path page : pages) {
            Matcher link = LINK.matcher(CODE_BLOCK.matcher(Files.readString(page)).replaceAll(""));
            while (link.find()) {
                String target = link.group(1);
                if (target.matches("^[a-z]+:.*")) {
                    continue;
                }
                int hash = target.indexOf('#');
                String file = hash < 0 ? target : target.substring(0, hash);
                Path resolved = file.isEmpty() ? page : page.getParent().resolve(file).normalize();
                if (!Files.exists(resolved)) {
                    broken.add(page + ": no file " + target);
                } else if (hash >= 0 && resolved.toString().endsWith(".md")
                        && !anchors(resolved).contains(target.substring(hash + 1))) {
                    broken.add(page + ": no heading " + target);
                }
            }
        }
        assertEquals(List.of(), broken);
    }

    @Test
    void anchorsAreTheHeadingsAsGitHubSpellsThem() throws IOException {
        Path page = Files.createTempFile("headings", ".md");
        Files.writeString(page, "# Run it\n## Publish a request, read its decision\n### `quota.usage.interval.ms`\n");
        assertEquals(Set.of("run-it", "publish-a-request-read-its-decision", "quotausageintervalms"), anchors(page));
    }

    private static List<Path> pages() throws IOException {
        List<Path> pages = new ArrayList<>(List.of(RepositoryFiles.path("README.md")));
        for (String dir : List.of("docs", "schemas", "deploy")) {
            try (Stream<Path> files = Files.walk(RepositoryFiles.path(dir))) {
                files.filter(file -> file.toString().endsWith(".md")).sorted().forEach(pages::add);
            }
        }
        return pages;
    }

    /** GitHub's anchor of each heading: lower case, punctuation dropped, spaces to hyphens. */
    private static Set<String> anchors(Path page) {
        try {
            Set<String> anchors = new HashSet<>();
            Matcher heading = HEADING.matcher(CODE_BLOCK.matcher(Files.readString(page)).replaceAll(""));
            while (heading.find()) {
                anchors.add(heading.group(1).strip().toLowerCase(Locale.ROOT).replaceAll("[^\\w\\- ]", "").replace(' ', '-'));
            }
            return anchors;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
