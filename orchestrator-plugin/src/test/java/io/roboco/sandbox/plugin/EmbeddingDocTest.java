package io.roboco.sandbox.plugin;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/** docs/embedding.md shows exactly the code that EmbeddingExample compiles (and EmbeddingExampleIT runs). */
class EmbeddingDocTest {
    private static final Path DOC = Path.of("..", "docs", "embedding.md");
    private static final Path EXAMPLE =
            Path.of("src", "test", "java", "io", "roboco", "sandbox", "plugin", "EmbeddingExample.java");
    private static final String MARKER =
            "<!-- compiled: orchestrator-plugin/src/test/java/io/roboco/sandbox/plugin/EmbeddingExample.java,"
                    + " region embedding-example -->";

    @Test
    void theDocsExampleIsTheCompiledExample() throws IOException {
        String compiled = region(Files.readString(EXAMPLE), "embedding-example");
        String shown = codeBlockAfter(Files.readString(DOC), MARKER);
        if (!shown.equals(compiled)) {
            fail(DOC + "'s example differs from " + EXAMPLE
                    + " (region embedding-example). Replace the java block after\n" + MARKER + "\nwith:\n```java\n"
                    + compiled + "\n```");
        }
    }

    /** The lines between {@code // doc:<name>:begin} and {@code // doc:<name>:end}, their common indent removed. */
    static String region(String source, String name) {
        String begin = "// doc:" + name + ":begin";
        String end = "// doc:" + name + ":end";
        assertThat(source)
                .as("the example marks its region with %s ... %s", begin, end)
                .contains(begin)
                .contains(end);
        String body = source.substring(source.indexOf('\n', source.indexOf(begin)) + 1, source.indexOf(end));
        List<String> lines =
                Arrays.stream(body.split("\n", -1)).map(String::stripTrailing).collect(Collectors.toList());
        while (!lines.isEmpty() && lines.get(lines.size() - 1).isEmpty()) {
            lines.remove(lines.size() - 1);
        }
        int indent = lines.stream()
                .filter(l -> !l.isBlank())
                .mapToInt(l -> l.length() - l.stripLeading().length())
                .min()
                .orElse(0);
        return lines.stream().map(l -> l.isBlank() ? "" : l.substring(indent)).collect(Collectors.joining("\n"));
    }

    /** The body of the first fenced block after {@code marker}. */
    static String codeBlockAfter(String doc, String marker) {
        int at = doc.indexOf(marker);
        assertThat(at).as("%s contains the marker %s", DOC, marker).isNotNegative();
        int open = doc.indexOf("```java\n", at);
        int close = doc.indexOf("\n```", open + 8);
        assertThat(open).as("a ```java block follows the marker").isPositive();
        return Arrays.stream(doc.substring(open + 8, close).split("\n", -1))
                .map(String::stripTrailing)
                .collect(Collectors.joining("\n"));
    }
}
