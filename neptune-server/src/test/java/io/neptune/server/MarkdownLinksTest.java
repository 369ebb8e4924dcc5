package io.neptune.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every link of every Markdown file in the repository resolves: the file or directory exists
 * inside the repository and the anchor names a heading of its target. External links are only
 * checked to be well-formed (no traffic leaves loopback). The checker itself is tried on small
 * files written for each rule.
 */
class MarkdownLinksTest {
    @TempDir
    Path temp;

    @Test
    void everyLinkInEveryMarkdownFileOfTheRepositoryResolves() {
        Path root = repositoryRoot();
        MarkdownLinks links = MarkdownLinks.in(root);
        List<Path> files = links.markdownFiles();
        assertThat(files).as("Markdown files under %s", root)
                .contains(root.resolve("README.md"), root.resolve("CONTRIBUTING.md"),
                        root.resolve("docs/ARCHITECTURE.md"));
        List<MarkdownLinks.Broken> broken = links.check(files);
        assertThat(broken).as("broken links in the repository's Markdown files (file:line -> target (reason)):%n%s",
                broken.stream().map(MarkdownLinks.Broken::toString).collect(Collectors.joining("\n"))).isEmpty();
    }

    @Test
    void aLinkOrImageToAMissingFileIsReportedWithItsLine() throws IOException {
        write("docs/GUIDE.md", "# Guide", "", "See [the setup](SETUP.md) and ![a diagram](img/flow.png).",
                "Up to [the readme](../README.md).");
        write("README.md", "# Readme");
        assertThat(brokenIn("docs/GUIDE.md")).containsExactly(
                "docs/GUIDE.md:3 -> SETUP.md (no such file or directory)",
                "docs/GUIDE.md:3 -> img/flow.png (no such file or directory)");
    }

    @Test
    void aLinkThatLeavesTheRepositoryIsReportedEvenWhenTheFileExists() throws IOException {
        write("README.md", "Read [the design](../DESIGN.md).");
        Files.writeString(temp.resolve("DESIGN.md"), "# Design"); // a file beside the repository
        assertThat(brokenIn("README.md")).containsExactly(
                "README.md:1 -> ../DESIGN.md (points outside the repository)");
    }

    @Test
    void anAnchorMustMatchAHeadingUnderGitHubSlugRules() throws IOException {
        write("docs/A.md", "# Fail-over: the `take-over` flow (v2)", "## Not yet built", "## Not yet built",
                "<a id=\"custom\"></a>", "## [Linked](B.md) & *emphasis*_x");
        write("docs/B.md", "[ok](A.md#fail-over-the-take-over-flow-v2) [dup](A.md#not-yet-built-1)",
                "[explicit](A.md#custom) [link text](A.md#linked--emphasis_x)",
                "[missing](A.md#not-yet-built-2) [case](A.md#Not-yet-built)");
        assertThat(brokenIn("docs/B.md")).containsExactly(
                "docs/B.md:3 -> A.md#not-yet-built-2 (no heading or anchor #not-yet-built-2 in docs/A.md)",
                "docs/B.md:3 -> A.md#Not-yet-built (no heading or anchor #Not-yet-built in docs/A.md)");
    }

    @Test
    void anAnchorInTheSameFileIsCheckedAgainstItsOwnHeadings() throws IOException {
        write("README.md", "# Quick start", "[start](#quick-start) [gone](#build)", "## Build and test");
        assertThat(brokenIn("README.md")).containsExactly(
                "README.md:2 -> #build (no heading or anchor #build in README.md)");
    }

    @Test
    void linksInsideCodeAreNotChecked() throws IOException {
        write("README.md", "```java", "[x](fenced.md)", "```", "", "    [x](indented.md)", "",
                "Text `[x](inline.md)` and ``[y](double.md)``.", "<!-- [x](comment.md) -->",
                "~~~", "[x](tilde.md)", "~~~", "- a list item", "", "    [x](list-paragraph.md)");
        assertThat(brokenIn("README.md")).containsExactly(
                "README.md:14 -> list-paragraph.md (no such file or directory)");
    }

    @Test
    void referenceLinksNeedADefinitionAndTheDefinitionMustResolve() throws IOException {
        write("README.md", "See [the guide][guide], [the docs][Docs] and [nothing][none].", "",
                "[guide]: docs/GUIDE.md", "[docs]: docs/");
        Files.createDirectories(repo().resolve("docs"));
        assertThat(brokenIn("README.md")).containsExactly(
                "README.md:1 -> none (no reference definition [none])",
                "README.md:3 -> docs/GUIDE.md (no such file or directory)");
    }

    @Test
    void externalLinksAreOnlyCheckedToBeWellFormed() throws IOException {
        write("README.md", "[ok](https://example.invalid/no/such/page) <https://example.invalid>",
                "[no host](https:///path) [mail](mailto:dev@example.invalid) [bad mail](mailto:nobody)",
                "[space](<https://exa mple.invalid>)");
        assertThat(brokenIn("README.md")).containsExactly("README.md:2 -> https:///path (URL without a host)",
                "README.md:2 -> mailto:nobody (mailto without an address)",
                "README.md:3 -> https://exa mple.invalid (malformed URL: Illegal character in authority)");
    }

    @Test
    void aLineAnchorIsAllowedOnSourceFilesAndOtherAnchorsAreNot() throws IOException {
        write("Main.java", "class Main {}");
        write("README.md", "[line](Main.java#L1) [range](Main.java#L1-L2) [method](Main.java#main)");
        assertThat(brokenIn("README.md")).containsExactly(
                "README.md:1 -> Main.java#main (anchor #main on a file that is not Markdown)");
    }

    @Test
    void slugsFollowGitHub() {
        assertThat(MarkdownLinks.slug("What runs where — threads & locks"))
                .isEqualTo("what-runs-where--threads--locks");
        assertThat(MarkdownLinks.slug("Figure 4.11: `qos-scalability` (16 servers)"))
                .isEqualTo("figure-411-qos-scalability-16-servers");
        assertThat(MarkdownLinks.slug("snake_case and Ünïcode")).isEqualTo("snake_case-and-ünïcode");
    }

    /** The repository the checker is tried on: a directory inside the temporary one, so files can sit beside it. */
    private Path repo() {
        return temp.resolve("repo");
    }

    private List<String> brokenIn(String file) {
        MarkdownLinks links = MarkdownLinks.in(repo());
        return links.check(List.of(repo().resolve(file))).stream().map(MarkdownLinks.Broken::toString)
                .collect(Collectors.toList());
    }

    private void write(String file, String... lines) throws IOException {
        Path path = repo().resolve(file);
        Files.createDirectories(path.getParent());
        Files.write(path, List.of(lines));
    }

    /** The repository's top directory: the first parent with docs/CONFIGURATION.md (as ConfigurationDocsTest). */
    private static Path repositoryRoot() {
        Path dir = Path.of("").toAbsolutePath();
        while (dir != null && !Files.isRegularFile(dir.resolve("docs/CONFIGURATION.md"))) {
            dir = dir.getParent();
        }
        assertThat(dir).as("a parent directory with docs/CONFIGURATION.md").isNotNull();
        return dir;
    }
}
