package io.roboco.sandbox.server.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import io.roboco.sandbox.engine.Engine;
import io.roboco.sandbox.engine.EngineRegistry;
import java.io.IOException;
import java.lang.reflect.RecordComponent;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * README.md's settings table (under "## Configuration") is the one copy: every setting {@link ServerConfig}
 * reads has a row there, every row names a setting it reads, and a row's default is ServerConfig's.
 *
 * <p>Which settings it reads: in the sources of ServerConfig and the settings it delegates to (every
 * {@code *Config} and {@code *Settings} class of the server.config package, e.g. {@link McpSettings}), the
 * {@code ROBOCO_SANDBOX_*} names in string literals and those built as {@code PREFIX + "NAME"}; a name built
 * as {@code PREFIX + "IMAGE_"} is a per-engine family, documented by one {@code …_<ENGINE>} row or by a row
 * per registered engine.
 *
 * <p>Whether a default is right: a row's default is the first {@code `backticked`} value of its default
 * cell; setting the variable to that value must leave the configuration as it is when the variable is
 * unset. Rows whose default is not a value (generated, stored, none) are listed in {@link #NO_VALUE_DEFAULT}.
 */
class SettingsTableTest {
    private static final Path README = Path.of("..", "README.md");
    private static final Path PACKAGE = Path.of("src", "main", "java", "io", "roboco", "sandbox", "server", "config");
    private static final Path SOURCE = PACKAGE.resolve("ServerConfig.java");
    private static final Pattern ROW =
            Pattern.compile("^\\|\\s*(`ROBOCO_SANDBOX_[^|]*?)\\s*\\|\\s*([^|]*?)\\s*\\|\\s*(.*?)\\s*\\|\\s*$");
    private static final Pattern KEY = Pattern.compile("`(ROBOCO_SANDBOX_[A-Z0-9_<>]+)`");
    private static final Pattern LITERAL = Pattern.compile("\"((?:[^\"\\\\]|\\\\.)*)\"");
    private static final Pattern NAME = Pattern.compile("ROBOCO_SANDBOX_[A-Z0-9_]*");
    private static final Pattern BUILT = Pattern.compile("(\\w+\\.)?PREFIX\\s*\\+\\s*\"([A-Z0-9_]+)\"");
    private static final Pattern OWN_PREFIX = Pattern.compile("String PREFIX\\s*=\\s*\"(ROBOCO_SANDBOX_[A-Z0-9_]*)\"");
    private static final String HOME = "/home/settings-table-test";
    private static final EngineRegistry REGISTRY = EngineRegistry.defaults();

    /** Settings whose default is not a value one could set (not round-tripped), and what unset means. */
    private static final Map<String, String> NO_VALUE_DEFAULT = Map.ofEntries(
            Map.entry("ROBOCO_SANDBOX_DB_ENABLED", "unset means: the value stored from the admin page, else off"),
            Map.entry("ROBOCO_SANDBOX_API_TOKEN", "unset means: generated once into the state directory"),
            Map.entry("ROBOCO_SANDBOX_ADMIN_TOKEN", "unset means: generated once into the state directory"),
            Map.entry("ROBOCO_SANDBOX_STATE_URL", "unset means: the embedded database in the state directory"),
            Map.entry("ROBOCO_SANDBOX_STATE_USER", "only with a URL"),
            Map.entry("ROBOCO_SANDBOX_STATE_PASSWORD", "only with a URL"),
            Map.entry("ROBOCO_SANDBOX_AGENT_CONTAINER", "only in network mode; unset means: the orchestrator attaches"),
            Map.entry("ROBOCO_SANDBOX_K8S_NAMESPACE", "only with the Kubernetes runtime, which requires it"),
            Map.entry(
                    "ROBOCO_SANDBOX_K8S_AGENT_NAMESPACE",
                    "only with the Kubernetes runtime; unset means: its namespace"),
            Map.entry(
                    "ROBOCO_SANDBOX_IMAGE_POSTGRES_<MAJOR>",
                    "unset means: the default image when it runs that major, else the official one"),
            Map.entry("ROBOCO_SANDBOX_MCP_URL", "unset means: http://127.0.0.1:<ROBOCO_SANDBOX_PORT>/mcp"),
            Map.entry("ROBOCO_SANDBOX_MCP_TOKEN", "the stdio bridge's token; the server does not read it"),
            Map.entry(
                    "ROBOCO_SANDBOX_MAX_CONTAINERS",
                    "unset means: 3/4 of the Docker host's memory over the per-container memory limit"),
            Map.entry("ROBOCO_SANDBOX_SECRET_KEY_FILE", "unset means: secret.key in the state directory"),
            Map.entry("ROBOCO_SANDBOX_CONCURRENT_STARTS", "unset means: the host's cores plus one, at least 3"));

    /** What an entry missing from one of ServerConfig's per-engine maps means, by record component. */
    private static final Map<String, Function<String, Object>> ABSENT_ENTRY = Map.of(
            "images", key -> REGISTRY.find(key).map(Engine::defaultImage).orElse(null),
            "poolSizes", key -> 0);

    record Row(String key, String defaultCell, String what) {
        Optional<String> literalDefault() {
            Matcher m = Pattern.compile("^`([^`]*)`").matcher(defaultCell);
            return m.find() ? Optional.of(m.group(1)) : Optional.empty();
        }
    }

    @Test
    void everySettingServerConfigReadsHasARow() throws IOException {
        Map<String, Row> rows = rows();
        Set<String> exact = exactNames();
        List<String> missing = new ArrayList<>();
        for (String key : exact) {
            if (!rows.containsKey(key) && familyRowsFor(key, rows).isEmpty()) {
                missing.add(rowToAdd(key));
            }
        }
        for (String family : familyPrefixes()) {
            boolean generic = rows.containsKey(family + "<ENGINE>");
            for (Engine engine : REGISTRY.all()) {
                String key = family + engine.name().toUpperCase(Locale.ROOT);
                if (!generic && !rows.containsKey(key)) {
                    missing.add(rowToAdd(key) + "   (or one row for the family: `" + family + "<ENGINE>`)");
                }
            }
        }
        if (!missing.isEmpty()) {
            fail("README.md's settings table (## Configuration) lacks " + missing.size()
                    + " setting(s) that ServerConfig reads."
                    + " Add these rows (default in backticks as one would set it, or a word such as 'generated' plus an entry"
                    + " in SettingsTableTest.NO_VALUE_DEFAULT saying what unset means):\n"
                    + String.join("\n", missing));
        }
    }

    @Test
    void everyRowNamesASettingServerConfigReads() throws IOException {
        Set<String> exact = exactNames();
        Set<String> families = familyPrefixes();
        List<String> stale = rows().keySet().stream()
                .filter(key -> !exact.contains(key) && families.stream().noneMatch(key::startsWith))
                .toList();
        assertThat(stale)
                .as("README.md rows for settings ServerConfig does not read: remove them, or read the setting"
                        + " (ServerConfig.fromEnv)")
                .isEmpty();
    }

    @Test
    void everyDocumentedDefaultIsServerConfigsDefault() throws IOException {
        Map<String, Object> unset = effective(ServerConfig.fromEnv(baseEnv()));
        List<String> wrong = new ArrayList<>();
        for (Row row : rows().values()) {
            Optional<String> literal = row.literalDefault();
            if (NO_VALUE_DEFAULT.containsKey(row.key())) {
                continue;
            }
            if (literal.isEmpty()) {
                wrong.add(
                        "| `" + row.key() + "` | " + row.defaultCell() + " | …: the default is not a value; write it in"
                                + " backticks as one would set it (e.g. `30s`), or add the setting to SettingsTableTest.NO_VALUE_DEFAULT"
                                + " saying what unset means");
                continue;
            }
            for (String key : concreteKeys(row.key())) {
                Map<String, String> env = baseEnv();
                env.put(key, literal.get().replace("~", HOME).replace("$HOME", HOME));
                Map<String, Object> set;
                try {
                    set = effective(ServerConfig.fromEnv(env));
                } catch (RuntimeException e) {
                    wrong.add("`" + key + "`=`" + literal.get() + "` (the documented default) is refused: "
                            + e.getMessage());
                    continue;
                }
                if (!set.equals(unset)) {
                    wrong.add("README.md says `" + key + "` defaults to `" + literal.get()
                            + "`, but setting it to that changes " + differences(unset, set)
                            + ": fix the row's default (or ServerConfig's)");
                }
            }
        }
        assertThat(wrong).as("documented defaults that are not ServerConfig's").isEmpty();
    }

    @Test
    void theTableStatesThatTheGraceMustExceedTheReadyTimeout() throws IOException {
        Row grace = rows().get("ROBOCO_SANDBOX_JANITOR_GRACE");
        assertThat(grace).as("a row for ROBOCO_SANDBOX_JANITOR_GRACE").isNotNull();
        assertThat(grace.what()).containsIgnoringCase("must exceed").contains("`ROBOCO_SANDBOX_READY_TIMEOUT`");
    }

    @Test
    void theOtherCopiesAreGoneAndLinkToTheTable() throws IOException {
        String httpApi = Files.readString(Path.of("..", "docs", "http-api.md"));
        String source = Files.readString(SOURCE);
        assertThat(httpApi).contains("README.md#configuration");
        assertThat(httpApi.lines().filter(l -> l.startsWith("| `ROBOCO_SANDBOX_")))
                .as("rows of a settings table copied into docs/http-api.md (link to README.md#configuration instead)")
                .isEmpty();
        assertThat(source).contains("README.md#configuration");
    }

    // --- what the README says ------------------------------------------------------------------

    private static Map<String, Row> rows() throws IOException {
        Map<String, Row> rows = new LinkedHashMap<>();
        boolean inSection = false;
        for (String line : Files.readAllLines(README)) {
            if (line.startsWith("## ")) {
                inSection = line.strip().equals("## Configuration");
                continue;
            }
            Matcher row = inSection ? ROW.matcher(line) : null;
            if (row == null || !row.matches()) {
                continue;
            }
            Matcher keys = KEY.matcher(row.group(1));
            while (keys.find()) {
                rows.put(keys.group(1), new Row(keys.group(1), row.group(2), row.group(3)));
            }
        }
        assertThat(rows)
                .as("rows of the settings table under '## Configuration' in %s", README.toAbsolutePath())
                .isNotEmpty();
        return rows;
    }

    /** Rows like {@code ROBOCO_SANDBOX_IMAGE_POSTGRES_<MAJOR>} that cover {@code key}. */
    private static List<String> familyRowsFor(String key, Map<String, Row> rows) {
        return rows.keySet().stream()
                .filter(r -> r.contains("<") && key.startsWith(r.substring(0, r.indexOf('<'))))
                .toList();
    }

    /** A placeholder row's keys to try: one per registered engine for {@code <ENGINE>}, a Postgres major for {@code <MAJOR>}. */
    private static List<String> concreteKeys(String key) {
        if (key.contains("<ENGINE>")) {
            return REGISTRY.names().stream()
                    .map(n -> key.replace("<ENGINE>", n.toUpperCase(Locale.ROOT)))
                    .toList();
        }
        return List.of(key.replace("<MAJOR>", "17"));
    }

    // --- what ServerConfig reads ----------------------------------------------------------------

    /** Whole setting names: in string literals, and built as {@code PREFIX + "NAME"} (comments stripped). */
    private static Set<String> exactNames() throws IOException {
        Set<String> names = new TreeSet<>();
        for (Map.Entry<String, String> source : settingsSources().entrySet()) {
            String code = source.getValue();
            Matcher literal = LITERAL.matcher(code);
            while (literal.find()) {
                Matcher name = NAME.matcher(literal.group(1));
                while (name.find()) {
                    if (!name.group().endsWith("_")) {
                        names.add(name.group());
                    }
                }
            }
            for (String built : built(code)) {
                if (!built.endsWith("_")) {
                    names.add(built);
                }
            }
        }
        return names;
    }

    /** Per-engine families: names built as {@code PREFIX + "IMAGE_"}. */
    private static Set<String> familyPrefixes() throws IOException {
        Set<String> families = new TreeSet<>();
        for (String code : settingsSources().values()) {
            built(code).stream().filter(n -> n.endsWith("_")).forEach(families::add);
        }
        return families;
    }

    /** {@code PREFIX + "NAME"} in {@code code}, with PREFIX the file's own (or ServerConfig's when qualified so). */
    private static List<String> built(String code) {
        Matcher own = OWN_PREFIX.matcher(code);
        String prefix = own.find() ? own.group(1) : ServerConfig.PREFIX;
        List<String> out = new ArrayList<>();
        Matcher m = BUILT.matcher(code);
        while (m.find()) {
            out.add(("ServerConfig.".equals(m.group(1)) ? ServerConfig.PREFIX : prefix) + m.group(2));
        }
        return out;
    }

    /** Source (comments stripped) of ServerConfig and every *Config / *Settings class of the server.config package, by file. */
    private static Map<String, String> settingsSources() throws IOException {
        Map<String, String> sources = new TreeMap<>();
        try (var files = Files.list(PACKAGE)) {
            for (Path file : files.filter(f -> f.getFileName().toString().matches("\\w+(Config|Settings)\\.java"))
                    .toList()) {
                sources.put(file.getFileName().toString(), withoutComments(Files.readString(file)));
            }
        }
        assertThat(sources)
                .as("settings sources in %s", PACKAGE.toAbsolutePath())
                .containsKey("ServerConfig.java");
        return sources;
    }

    private static String withoutComments(String code) {
        return code.replaceAll("(?s)/\\*.*?\\*/", "").replaceAll("(?m)^\\s*//.*$", "");
    }

    /** The row to add for {@code key}, with its default when the source reads it as {@code "KEY", d.accessor()}. */
    private static String rowToAdd(String key) throws IOException {
        Matcher m = Pattern.compile("\"" + key + "\",\\s*d\\.(\\w+)\\(\\)").matcher(Files.readString(SOURCE));
        String value = "<default>";
        if (m.find()) {
            try {
                Object v = ServerConfig.class.getMethod(m.group(1)).invoke(ServerConfig.defaults(Path.of(HOME)));
                value = v instanceof Duration d ? Durations.format(d) : String.valueOf(v);
            } catch (ReflectiveOperationException e) {
                value = "<default>";
            }
        }
        return "| `" + key + "` | `" + value + "` | <what it does> |";
    }

    // --- comparing configurations ---------------------------------------------------------------

    private static Map<String, String> baseEnv() {
        Map<String, String> env = new HashMap<>();
        env.put("HOME", HOME);
        return env;
    }

    /** The record's components by name; per-engine override maps with their absent entries filled in. */
    private static Map<String, Object> effective(ServerConfig config) {
        Map<String, Object> out = new TreeMap<>();
        for (RecordComponent c : ServerConfig.class.getRecordComponents()) {
            Object value;
            try {
                value = c.getAccessor().invoke(config);
            } catch (ReflectiveOperationException e) {
                throw new IllegalStateException(e);
            }
            if (value instanceof Map<?, ?> map) {
                if (!ABSENT_ENTRY.containsKey(c.getName())) {
                    fail("ServerConfig." + c.getName()
                            + " is a map; say in SettingsTableTest.ABSENT_ENTRY what a missing entry means");
                }
                Map<Object, Object> filled = new TreeMap<>();
                map.forEach((k, v) -> {
                    if (!v.equals(ABSENT_ENTRY.get(c.getName()).apply((String) k))) {
                        filled.put(k, v);
                    }
                });
                value = filled;
            }
            out.put(c.getName(), value);
        }
        return out;
    }

    private static String differences(Map<String, Object> unset, Map<String, Object> set) {
        List<String> out = new ArrayList<>();
        unset.forEach((name, value) -> {
            if (!Objects.equals(value, set.get(name))) {
                out.add(name + " from " + show(value) + " to " + show(set.get(name)));
            }
        });
        return String.join(", ", out);
    }

    private static String show(Object v) {
        return v instanceof Duration d ? Durations.format(d) : String.valueOf(v);
    }
}
