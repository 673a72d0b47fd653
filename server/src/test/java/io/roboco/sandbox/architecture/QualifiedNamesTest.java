package io.roboco.sandbox.architecture;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * One mechanical style, the part the formatter does not do: code names types by import, not inline
 * ({@code java.util.Map<...>} in the middle of a method). A qualified name stays only where the simple
 * name is already taken in that file (another import of that name, or a type the file declares).
 * Strings and comments are not code; {@code mvn spotless:apply} (palantir-java-format) formats the rest.
 */
class QualifiedNamesTest {

    private static final Pattern QUALIFIED = Pattern.compile(
            "(?<![\\w.])((?:java|javax|jakarta|io|com|org|ch|gg|picocli|redis)\\.(?:[a-z_][a-z0-9_]*\\.)*)([A-Z]\\w*)");
    private static final Pattern IMPORT = Pattern.compile("(?m)^import\\s+([\\w.]+)\\s*;");
    private static final Pattern DECLARED = Pattern.compile("\\b(?:class|interface|record|enum)\\s+([A-Z]\\w*)");
    private static final Pattern HEADER_END = Pattern.compile("(?m)^(?:import|package)\\s[^\\n]*\\n");

    @Test
    void codeNamesTypesByImportNotInline() throws IOException {
        List<String> inline = new ArrayList<>();
        try (Stream<Path> files = Files.walk(repositoryRoot())) {
            files.filter(QualifiedNamesTest::isJavaSource).forEach(file -> inline.addAll(inlineNames(file)));
        }
        assertThat(inline)
                .as("import these types instead of naming them inline (the simple name is free in each file)")
                .isEmpty();
    }

    private static boolean isJavaSource(Path file) {
        String path = file.toString().replace('\\', '/');
        return path.endsWith(".java")
                && path.contains("/src/")
                && !path.contains("/target/")
                && !path.contains("/images/");
    }

    private static List<String> inlineNames(Path file) {
        String source = read(file);
        Map<String, String> imported = new HashMap<>();
        Matcher imports = IMPORT.matcher(source);
        while (imports.find()) {
            String name = imports.group(1);
            imported.putIfAbsent(name.substring(name.lastIndexOf('.') + 1), name);
        }
        Set<String> declared = new HashSet<>();
        Matcher declarations = DECLARED.matcher(source);
        while (declarations.find()) {
            declared.add(declarations.group(1));
        }
        int bodyStart = 0;
        Matcher header = HEADER_END.matcher(source);
        while (header.find()) {
            bodyStart = header.end();
        }
        List<String> found = new ArrayList<>();
        Matcher qualified = QUALIFIED.matcher(codeOnly(source.substring(bodyStart)));
        while (qualified.find()) {
            String simple = qualified.group(2);
            String full = qualified.group(1) + simple;
            String other = imported.get(simple);
            boolean taken = (other != null && !other.equals(full)) || declared.contains(simple);
            if (!taken) {
                found.add(file.getFileName() + ": " + full);
            }
        }
        return found;
    }

    /** The text with comments, string and char literals and text blocks blanked out. */
    static String codeOnly(String source) {
        StringBuilder code = new StringBuilder(source.length());
        int i = 0;
        while (i < source.length()) {
            int end = literalOrCommentEnd(source, i);
            if (end > i) {
                code.append(" ".repeat(end - i));
                i = end;
            } else {
                code.append(source.charAt(i++));
            }
        }
        return code.toString();
    }

    private static int literalOrCommentEnd(String s, int i) {
        if (s.startsWith("//", i)) {
            int end = s.indexOf('\n', i);
            return end < 0 ? s.length() : end;
        }
        if (s.startsWith("/*", i)) {
            int end = s.indexOf("*/", i + 2);
            return end < 0 ? s.length() : end + 2;
        }
        if (s.startsWith("\"\"\"", i)) {
            int end = s.indexOf("\"\"\"", i + 3);
            return end < 0 ? s.length() : end + 3;
        }
        char c = s.charAt(i);
        if (c == '"' || c == '\'') {
            int j = i + 1;
            while (j < s.length() && s.charAt(j) != c) {
                j += s.charAt(j) == '\\' ? 2 : 1;
            }
            return Math.min(s.length(), j + 1);
        }
        return i;
    }

    private static String read(Path file) {
        try {
            return Files.readString(file);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static Path repositoryRoot() {
        Path dir = Path.of("").toAbsolutePath();
        while (dir != null && !Files.isDirectory(dir.resolve("orchestrator-plugin"))) {
            dir = dir.getParent();
        }
        assertThat(dir)
                .as("repository root above " + Path.of("").toAbsolutePath())
                .isNotNull();
        return dir;
    }
}
