package io.roboco.sandbox.security;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.roboco.sandbox.it.Fixtures;
import io.roboco.sandbox.it.InProcessServer;
import io.roboco.sandbox.testkit.ApiClient;
import io.roboco.sandbox.testkit.InProcessServerExtension;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Hundreds of generated extension / module names that are not on the allowlist — superuser
 * languages, other contrib modules, quoting and SQL-injection shapes, unicode look-alikes, control
 * characters, very long and empty names, null-ish values — sent through the HTTP API, per call and
 * as a project's standing set. Every one is refused (a refused envelope or a 400), and not one of
 * those requests makes a single container-runtime call (a counting wrapper sits around the real
 * runtime; the janitor's own thread is not counted).
 */
class ExtensionNameFuzzIT {
    private static final ObjectMapper MAPPER = new ObjectMapper();
    private static final Set<String> POSTGRES_ALLOWED = Set.of("vector", "postgis", "pg_trgm", "citext", "uuid-ossp");
    private static final Set<String> REDIS_ALLOWED = Set.of("search", "json", "bloom");

    @RegisterExtension
    static final InProcessServerExtension<InProcessServer> SERVER = InProcessServerExtension.startedBeforeAll(
            stateDir -> new InProcessServer(stateDir, "1h", "2m", "30s", null));

    @Test
    @Timeout(value = 180, unit = TimeUnit.SECONDS)
    void everyNameOffTheAllowlistIsRefusedBeforeAnyRuntimeCall() throws Exception {
        ApiClient api = SERVER.api();
        api.working("fuzz-new", "fuzz", "[\"postgres\",\"redis\",\"mongo\"]");
        api.working("fuzz-live", "fuzz", "[\"postgres\",\"redis\",\"mongo\"]");
        ApiClient.Reply live = api.requestSandboxRetrying("fuzz-live", 3);
        assertThat(live.ok()).as("%s", live).isTrue();

        List<Object> names = new ArrayList<>(generated());
        names.addAll(Arrays.asList(null, 42, true, List.of("vector"), Map.of("name", "vector"), 3.5));
        int tried = 0;
        int refusedEnvelope = 0;
        int badRequest = 0;
        List<String> slipped = new ArrayList<>();
        long begin = System.nanoTime();
        for (Object name : names) {
            for (String service : List.of("postgres", "redis", "mongo")) {
                if (System.nanoTime() - begin > TimeUnit.SECONDS.toNanos(120)) {
                    break;
                }
                String agent = tried % 2 == 0 ? "fuzz-new" : "fuzz-live";
                Map<String, Object> body = new LinkedHashMap<>();
                body.put("extensions", Map.of(service, Arrays.asList(name)));
                long before = SERVER.server().runtime.calls();
                ApiClient.Reply r = api.verb(agent, "request_sandbox", MAPPER.writeValueAsString(body));
                long calls = SERVER.server().runtime.calls() - before;
                tried++;
                String outcome = outcome(r);
                if (outcome.equals("refused")) {
                    refusedEnvelope++;
                } else if (outcome.equals("bad_request")) {
                    badRequest++;
                }
                if (!outcome.equals("refused") && !outcome.equals("bad_request") || calls != 0) {
                    slipped.add(
                            service + " " + describe(name) + " -> " + outcome + ", runtime calls " + calls + ": " + r);
                }
            }
        }
        // The project's standing set goes through the same allowlist (admin route; never touches the runtime).
        int standingTried = 0;
        int standingRefused = 0;
        for (Object name : names.subList(0, Math.min(names.size(), 150))) {
            long before = SERVER.server().runtime.calls();
            Map<String, Object> body = new LinkedHashMap<>();
            body.put("name", "Fuzz2");
            body.put("sandbox_services", List.of("postgres", "redis"));
            body.put("sandbox_extensions", Map.of(standingTried % 2 == 0 ? "postgres" : "redis", Arrays.asList(name)));
            ApiClient.Reply r = api.admin("PUT", "/api/projects/fuzz2", MAPPER.writeValueAsString(body));
            standingTried++;
            if (r.status() == 400 && SERVER.server().runtime.calls() == before) {
                standingRefused++;
            } else {
                slipped.add("standing set " + describe(name) + " -> " + r);
            }
        }
        assertThat(api.admin("GET", "/api/projects/fuzz2", null).status())
                .as("no refused standing set was stored")
                .isEqualTo(404);

        // Control: an allowed name on the live sandbox does reach the runtime, so the counter counts.
        long before = SERVER.server().runtime.calls();
        ApiClient.Reply allowed =
                api.verb("fuzz-live", "request_sandbox", "{\"extensions\":{\"postgres\":[\"pg_trgm\"]}}");
        assertThat(allowed.ok()).as("%s", allowed).isTrue();
        long controlCalls = SERVER.server().runtime.calls() - before;

        Fixtures.figure("ExtensionNameFuzzIT names tried: " + tried + " per call (" + names.size()
                + " distinct values x 3 services), refused: "
                + (refusedEnvelope + badRequest) + " (" + refusedEnvelope + " refused envelopes, " + badRequest
                + " HTTP 400), slipped through or "
                + "touched the runtime: " + slipped.size() + "; standing set tried " + standingTried + ", refused "
                + standingRefused
                + "; control (allowed pg_trgm) made " + controlCalls + " runtime calls");
        assertThat(slipped).isEmpty();
        assertThat(tried).isGreaterThanOrEqualTo(300);
        assertThat(controlCalls).isPositive();
    }

    private static String outcome(ApiClient.Reply r) {
        if (r.status() == 400) {
            return "bad_request";
        }
        if (r.status() != 200) {
            return "HTTP " + r.status();
        }
        Map<String, Object> json = r.json();
        if (Boolean.TRUE.equals(json.get("ok"))) {
            return "ok";
        }
        return String.valueOf(json.get("error"));
    }

    private static String describe(Object name) {
        if (!(name instanceof String s)) {
            return String.valueOf(name);
        }
        StringBuilder sb = new StringBuilder("'");
        s.codePoints()
                .limit(40)
                .forEach(c -> sb.append(c >= 0x20 && c < 0x7f ? Character.toString(c) : String.format("\\u%04x", c)));
        return sb.append(s.length() > 40 ? "…(" + s.length() + ")" : "")
                .append("'")
                .toString();
    }

    /** Forbidden bases, mutated allowlisted names and hostile shapes; never an allowlisted name itself. */
    static Set<String> generated() {
        List<String> forbidden = List.of(
                "plpython3u",
                "plpythonu",
                "plpython2u",
                "plperlu",
                "plperl",
                "pltclu",
                "pltcl",
                "plv8",
                "plsh",
                "adminpack",
                "dblink",
                "file_fdw",
                "postgres_fdw",
                "pg_read_server_files",
                "lo",
                "plpgsql",
                "pg_stat_statements",
                "pgcrypto",
                "hstore",
                "tablefunc",
                "amcheck",
                "pageinspect",
                "pg_buffercache",
                "pg_prewarm",
                "sslinfo",
                "xml2",
                "pg_cron",
                "timescaledb",
                "pgml",
                "untrusted",
                "all",
                "ALL",
                "*",
                "%",
                "_",
                "-",
                ".",
                "..",
                "../../etc/passwd",
                "/usr/lib/postgresql/15/lib/plpython3.so",
                "rejson",
                "ReJSON",
                "redisearch",
                "timeseries",
                "graph",
                "redisgears",
                "/usr/lib/redis/modules/redisearch.so",
                "MODULE LOAD /tmp/x.so",
                "CONFIG SET dir /",
                "eval",
                "script",
                "acl");
        List<String> allowed = new ArrayList<>(POSTGRES_ALLOWED);
        allowed.addAll(REDIS_ALLOWED);
        Set<String> out = new LinkedHashSet<>(forbidden);
        String[] wrappers = {
            "'%s'",
            "\"%s\"",
            "`%s`",
            "%s;",
            "%s; DROP ROLE postgres",
            "%s'; CREATE EXTENSION plpython3u; --",
            "%s\" CASCADE",
            "%s CASCADE",
            "%s WITH SCHEMA pg_catalog",
            "%s VERSION '1.0'",
            "%s--",
            "%s/*",
            "$$%s$$",
            " %s",
            "%s ",
            "\t%s",
            "%s\n",
            "%s\r\n",
            "%s\u0000",
            "\u0000%s",
            "%s\\",
            "%s%00",
            "%s\u200b",
            "\u200b%s",
            "%s\u202e",
            "\ufeff%s",
            "%s\u0301",
            "(%s)",
            "[%s]",
            "{%s}",
            "%s,plpython3u",
            "%s plpython3u",
            "%s|plpython3u",
            "%s&&id",
            "%s$(id)",
            "%s`id`",
            "%s\\'",
            "%s' OR '1'='1",
            "%s\u00a0"
        };
        for (String name : allowed) {
            for (String w : wrappers) {
                out.add(w.replace("%s", name));
            }
            out.add(name.toUpperCase());
            out.add(Character.toUpperCase(name.charAt(0)) + name.substring(1));
            out.add(name.replace('-', '_'));
            out.add(name.replace('_', '-'));
            out.add(name.replace("-", "\u2010")); // hyphen look-alike
            out.add(name.replace("-", "\u2013")); // en dash
            out.add(name + name);
            out.add(name.substring(0, name.length() - 1));
            out.add(name.repeat(30));
            out.add(lookAlike(name, 'e', '\u0435')); // Cyrillic e
            out.add(lookAlike(name, 'o', '\u043e')); // Cyrillic o
            out.add(lookAlike(name, 'c', '\u0441')); // Cyrillic c
            out.add(lookAlike(name, 'p', '\u0440')); // Cyrillic r looks like p
            out.add(lookAlike(name, 'a', '\u0430')); // Cyrillic a
            out.add(lookAlike(name, 'i', '\u0456')); // Ukrainian i
            out.add(lookAlike(name, 's', '\u0455')); // Cyrillic dze
            out.add(lookAlike(name, 'o', '\u03bf')); // Greek omicron
            out.add(fullWidth(name));
        }
        out.addAll(List.of(
                "",
                " ",
                "  ",
                "\t",
                "\n",
                "null",
                "NULL",
                "Null",
                "None",
                "nil",
                "undefined",
                "NaN",
                "0",
                "-1",
                "false",
                "true",
                "[]",
                "{}",
                "\"\"",
                "''",
                "\u0000",
                "\\0",
                "\\x00",
                "%00",
                "\u202e",
                "\u200b",
                "x".repeat(64),
                "x".repeat(65),
                "a".repeat(1000),
                "é".repeat(200),
                "😀",
                "vector😀",
                "🐘"));
        out.removeAll(POSTGRES_ALLOWED);
        out.removeAll(REDIS_ALLOWED);
        return out;
    }

    private static String lookAlike(String name, char from, char to) {
        int at = name.indexOf(from);
        return at < 0 ? name + to : name.substring(0, at) + to + name.substring(at + 1);
    }

    private static String fullWidth(String name) {
        StringBuilder sb = new StringBuilder();
        name.chars().forEach(c -> sb.append(c >= '!' && c <= '~' ? (char) (c - '!' + '\uff01') : (char) c));
        return sb.toString();
    }
}
