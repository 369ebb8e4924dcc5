package io.neptune.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.fail;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.neptune.core.ConfigException;
import io.neptune.core.internal.config.ConfigNode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * docs/CONFIGURATION.md against the code: every key a section's table documents is a key the
 * parser reads, and every key the parser reads is documented. The parser's own error for an
 * unknown key lists the keys it read ({@link ConfigNode#finish()}), so each section is loaded with
 * one made-up key and that list is compared with the table.
 */
class ConfigurationDocsTest {
    private static final Pattern HEADING = Pattern.compile("^## (.*)$");
    private static final Pattern ROW = Pattern.compile("^\\| `([a-z][a-z-]*)` \\|");
    private static final Pattern EXPECTED = Pattern.compile("expected: one of ([^)]*)\\)");
    private static final String BOGUS = "not-a-documented-key";

    /** The sections the parser reads, besides the node's own keys. */
    private static final Set<String> SECTIONS = Set.of("membership", "client", "security", "services", "scheduling",
            "classes");

    @Test
    void everyDocumentedKeyIsReadAndEveryReadKeyIsDocumented() throws IOException {
        Map<String, Set<String>> documented = documentedKeys();
        Map<String, String> yaml = new LinkedHashMap<>();
        yaml.put("node", BOGUS + ": 1\nnode: docs\n");
        yaml.put("membership", "node: docs\nmembership:\n  " + BOGUS + ": 1\n");
        yaml.put("client", "node: docs\nclient:\n  " + BOGUS + ": 1\n");
        yaml.put("security", "node: docs\nsecurity:\n  " + BOGUS + ": 1\n");
        yaml.put("services", "node: docs\nservices:\n  - class: " + EchoTestService.class.getName() + "\n    "
                + BOGUS + ": 1\n");
        yaml.put("process", "node: docs\nservices:\n  - process:\n      name: p\n      command: [cat]\n      " + BOGUS
                + ": 1\n");
        yaml.put("scheduling", "node: docs\nscheduling:\n  " + BOGUS + ": 1\n");
        yaml.put("classes", "node: docs\nclasses:\n  - name: gold\n    deadline: 1s\n    " + BOGUS + ": 1\n");
        for (Map.Entry<String, String> section : yaml.entrySet()) {
            Set<String> read = readKeys(section.getValue());
            Set<String> expected = new TreeSet<>(documented.getOrDefault(section.getKey(), Set.of()));
            if (section.getKey().equals("node")) {
                expected.addAll(SECTIONS);
            }
            assertThat(read).as("keys the parser reads in section '%s' (left) against docs/CONFIGURATION.md (right)",
                    section.getKey()).containsExactlyInAnyOrderElementsOf(expected);
        }
    }

    @Test
    void theCheckSeesAnUndocumentedKey() throws IOException {
        // the comparison above is only as good as the parser's list: a made-up key is refused, and the list is there
        assertThatThrownBy(() -> NodeConfigFile.parse(ConfigNode.of(new ObjectMapper(new YAMLFactory())
                .readTree("node: docs\nclient:\n  made-up: 1\n")))).isInstanceOf(ConfigException.class)
                .hasMessageContaining("client.made-up: unknown key (expected: one of policy, ");
        assertThat(readKeys("node: docs\nclient:\n  " + BOGUS + ": 1\n")).contains("timeout", "policy")
                .doesNotContain(BOGUS);
    }

    /** The keys the parser read in the section holding {@value #BOGUS}, from its unknown-key error. */
    private static Set<String> readKeys(String yaml) {
        JsonNode root;
        try {
            root = new ObjectMapper(new YAMLFactory()).readTree(yaml);
        } catch (IOException e) {
            throw new AssertionError(e);
        }
        try {
            NodeConfigFile.parse(ConfigNode.of(root));
        } catch (ConfigException e) {
            assertThat(e.getMessage()).contains(BOGUS).contains("unknown key");
            Matcher m = EXPECTED.matcher(e.getMessage());
            assertThat(m.find()).as(e.getMessage()).isTrue();
            return Set.copyOf(Arrays.stream(m.group(1).split(", ")).map(String::strip).collect(Collectors.toSet()));
        }
        return fail("the parser accepted the unknown key " + BOGUS + " in:%n%s", yaml);
    }

    /** Section → the keys of its table in docs/CONFIGURATION.md. */
    private static Map<String, Set<String>> documentedKeys() throws IOException {
        Path docs = Path.of("").toAbsolutePath();
        while (docs != null && !Files.isRegularFile(docs.resolve("docs/CONFIGURATION.md"))) {
            docs = docs.getParent();
        }
        assertThat(docs).as("a parent directory with docs/CONFIGURATION.md").isNotNull();
        List<String> lines = Files.readAllLines(docs.resolve("docs/CONFIGURATION.md"));
        Map<String, Set<String>> keys = new LinkedHashMap<>();
        String section = null;
        for (String line : lines) {
            Matcher heading = HEADING.matcher(line);
            if (heading.matches()) {
                String title = heading.group(1);
                section = title.equals("Node") ? "node" : title.startsWith("`membership`") ? "membership"
                        : title.startsWith("`client`") ? "client" : title.startsWith("`security`") ? "security"
                        : title.startsWith("`services`") ? "services"
                        : title.startsWith("Process-backed") ? "process" : title.startsWith("`scheduling`")
                        ? "scheduling" : null;
                continue;
            }
            if (section != null && line.startsWith("`classes`")) {
                section = "classes"; // the second table of the scheduling heading
            }
            Matcher row = ROW.matcher(line);
            if (section != null && row.find()) {
                keys.computeIfAbsent(section, s -> new TreeSet<>()).add(row.group(1));
            }
        }
        return keys;
    }
}
