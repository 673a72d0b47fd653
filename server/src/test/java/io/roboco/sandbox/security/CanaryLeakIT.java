package io.roboco.sandbox.security;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.classic.spi.ThrowableProxyUtil;
import ch.qos.logback.core.AppenderBase;
import io.roboco.sandbox.it.Fixtures;
import io.roboco.sandbox.it.InProcessServer;
import io.roboco.sandbox.it.McpWire;
import io.roboco.sandbox.janitor.SweepReport;
import io.roboco.sandbox.provision.LocalImages;
import io.roboco.sandbox.server.SecretSafeLogging;
import io.roboco.sandbox.testkit.ApiClient;
import io.roboco.sandbox.testkit.InProcessServerExtension;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.slf4j.LoggerFactory;

/**
 * A canary password (every password the server generates starts with {@code CANARY}) appears
 * nowhere but the ok-envelope of request_sandbox (over HTTP, or as the MCP tool result): not in the server's log output (every logger,
 * plus stdout/stderr), audit rows, error messages, labels, container names or other HTTP answers;
 * the agent's password is in no {@code docker inspect} or {@code docker logs} output, and an admin
 * password only in its own sandbox container's environment.
 */
class CanaryLeakIT {
    private static final CanarySecretSource CANARY = new CanarySecretSource();

    @RegisterExtension
    static final InProcessServerExtension<InProcessServer> SERVER = InProcessServerExtension.startedByTheTest(
            stateDir -> new InProcessServer(stateDir, "1s", "40s", "30s", CANARY));

    @Test
    @Timeout(value = 420, unit = TimeUnit.SECONDS)
    void theCanaryPasswordAppearsOnlyInTheOkEnvelope() throws Exception {
        StringBuffer logged = new StringBuffer();
        AppenderBase<ILoggingEvent> capture = new AppenderBase<>() {
            @Override
            protected void append(ILoggingEvent e) {
                logged.append(e.getLoggerName())
                        .append(' ')
                        .append(e.getFormattedMessage())
                        .append('\n');
                if (e.getThrowableProxy() != null) {
                    logged.append(ThrowableProxyUtil.asString(e.getThrowableProxy()))
                            .append('\n');
                }
            }
        };
        Logger root = (Logger) LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);
        Level rootLevel = root.getLevel();
        root.setLevel(Level.DEBUG);
        // Every logger at DEBUG but Jetty's: at DEBUG it dumps the bytes of every response it writes (wire level, as
        // tcpdump would), the envelope's included, at offsets that depend on how the body was chunked. The jar's
        // logback.xml pins it to WARN; that this stays so is checked here rather than assumed.
        Logger jetty = (Logger) LoggerFactory.getLogger("org.eclipse.jetty");
        Level jettyLevel = jetty.getLevel();
        assertThat(Files.readString(Path.of("src/main/resources/logback.xml")))
                .contains("<logger name=\"org.eclipse.jetty\" level=\"WARN\"/>");
        jetty.setLevel(Level.WARN);
        // The libraries that log whole requests at DEBUG stay at INFO: a server refuses to start with them at DEBUG
        // (SecretSafeLogging), so what is scanned is everything a running server can log.
        Map<Logger, Level> leaky = new LinkedHashMap<>();
        for (String name : SecretSafeLogging.LEAKY) {
            Logger logger = (Logger) LoggerFactory.getLogger(name);
            leaky.put(logger, logger.getLevel());
            logger.setLevel(Level.INFO);
        }
        capture.setContext(root.getLoggerContext());
        capture.start();
        root.addAppender(capture);
        PrintStream out = System.out;
        PrintStream err = System.err;
        ByteArrayOutputStream console = new ByteArrayOutputStream();
        System.setOut(new PrintStream(new Tee(out, console), true));
        System.setErr(new PrintStream(new Tee(err, console), true));

        List<String> envelopes = new ArrayList<>();
        Map<String, String> elsewhere = new LinkedHashMap<>();
        try {
            InProcessServer server = SERVER.start();
            ApiClient api = server.api;
            record(
                    elsewhere,
                    "PUT /api/projects",
                    api.admin(
                            "PUT",
                            "/api/projects/sec",
                            "{\"name\":\"Sec\",\"sandbox_services\":[\"postgres\",\"redis\",\"mongo\"],\"sandbox_extensions\":{\"postgres\":[\"pg_trgm\"]}}"));
            record(
                    elsewhere,
                    "spawn",
                    api.orchestrator(
                            "POST", "/api/agents/canary-a/spawn", "{\"role\":\"developer\",\"project\":\"sec\"}"));
            record(
                    elsewhere,
                    "give_me_work",
                    api.verb("canary-a", "give_me_work", "{\"project\":\"sec\",\"task\":\"T-1\"}"));
            ApiClient.Reply first = api.requestSandboxRetrying("canary-a", 5);
            assertThat(first.ok()).as("%s", first).isTrue();
            envelopes.add(first.body());
            ApiClient.Reply hit = api.requestSandbox("canary-a");
            assertThat(hit.ok()).as("%s", hit).isTrue();
            envelopes.add(hit.body());
            assertThat(first.body()).as("the canary is really in use").contains(CanarySecretSource.MARK);

            // Error paths: refusals, a feature the image lacks, malformed input, a dead sandbox re-provisioned.
            record(
                    elsewhere,
                    "refused extension",
                    api.verb("canary-a", "request_sandbox", "{\"extensions\":{\"postgres\":[\"plpython3u\"]}}"));
            record(
                    elsewhere,
                    "unavailable extension",
                    api.verb("canary-a", "request_sandbox", "{\"extensions\":{\"postgres\":[\"vector\"]}}"));
            record(elsewhere, "bad json", api.verb("canary-a", "request_sandbox", "{\"services\":"));
            record(elsewhere, "unknown verb", api.verb("canary-a", "drop_tables", "{}"));
            record(elsewhere, "wrong token", api.send("GET", "/api/audit", ApiClient.API_TOKEN, null));
            for (String id : Fixtures.runningOf(server.instanceId())) {
                if (LocalImages.docker("inspect", "-f", "{{index .Config.Labels \"roboco.sandbox.service\"}}", id)
                        .strip()
                        .equals("postgres")) {
                    LocalImages.docker("kill", id);
                }
            }
            ApiClient.Reply again = api.requestSandboxRetrying("canary-a", 5);
            assertThat(again.ok()).as("%s", again).isTrue();
            envelopes.add(again.body());

            // The MCP path: the same sandbox as a tool result, inspection, refusals and protocol errors.
            ApiClient.Reply minted = api.orchestrator(
                    "POST", "/api/agents/canary-a/token", "{\"toolsets\":[\"core\",\"inspect\",\"data\"]}");
            McpWire mcp = new McpWire(server.port(), (String) minted.json().get("token"));
            elsewhere.put("MCP initialize", mcp.initialize());
            String granted = mcp.call("request_sandbox", Map.of());
            assertThat(granted)
                    .as("the MCP result carries the same credentials")
                    .contains(CanarySecretSource.MARK);
            envelopes.add(granted);
            elsewhere.put("MCP list_sandboxes", mcp.call("list_sandboxes", Map.of()));
            elsewhere.put(
                    "MCP run_readonly_query",
                    mcp.call("run_readonly_query", Map.of("sql", "SELECT current_user, current_database()")));
            elsewhere.put(
                    "MCP refused query",
                    mcp.call("run_readonly_query", Map.of("sql", "SELECT 1; COMMIT; DELETE FROM x")));
            elsewhere.put(
                    "MCP failed query", mcp.call("run_readonly_query", Map.of("sql", "SELECT * FROM no_such_table")));
            elsewhere.put("MCP describe_sandbox", mcp.call("describe_sandbox", Map.of()));
            elsewhere.put(
                    "MCP refused extension",
                    mcp.call("request_sandbox", Map.of("extensions", Map.of("postgres", List.of("plpython3u")))));
            elsewhere.put("MCP malformed arguments", mcp.call("request_sandbox", Map.of("services", "postgres")));
            elsewhere.put("MCP unknown tool", mcp.call("drop_tables", Map.of()));
            elsewhere.put("MCP wrong token", new McpWire(server.port(), "rbxa_wrong").call("list_sandboxes", Map.of()));

            record(elsewhere, "GET /api/sandboxes", api.admin("GET", "/api/sandboxes", null));
            record(elsewhere, "GET /api/projects", api.admin("GET", "/api/projects", null));
            record(elsewhere, "GET /api/projects/sec", api.admin("GET", "/api/projects/sec", null));
            record(elsewhere, "GET /api/flags", api.admin("GET", "/api/flags", null));
            record(elsewhere, "GET /healthz", api.send("GET", "/healthz", null, null));

            List<String> agentPasswords = CANARY.issued.stream()
                    .filter(p -> envelopes.stream().anyMatch(e -> e.contains(p)))
                    .toList();
            List<String> adminPasswords = CANARY.issued.stream()
                    .filter(p -> !agentPasswords.contains(p))
                    .toList();
            assertThat(agentPasswords).isNotEmpty();
            assertThat(adminPasswords).isNotEmpty();

            // Containers: labels and names never; the agent's password in no inspect or log output;
            // an admin password only in its own container's Config.Env.
            for (String id : Fixtures.containersOf(server.instanceId())) {
                String inspect = LocalImages.docker("inspect", id);
                elsewhere.put(
                        "docker inspect " + id.substring(0, 12) + " (labels, name, cmd)",
                        LocalImages.docker(
                                "inspect",
                                "-f",
                                "{{json .Config.Labels}} {{.Name}} {{json .Config.Cmd}} {{json .Args}} {{json .Config.Entrypoint}}",
                                id));
                elsewhere.put("docker logs " + id.substring(0, 12), LocalImages.docker("logs", id));
                String env = LocalImages.docker("inspect", "-f", "{{json .Config.Env}}", id);
                for (String agentPw : agentPasswords) {
                    assertThat(inspect)
                            .as("agent password in docker inspect of " + id)
                            .doesNotContain(agentPw);
                }
                long own = adminPasswords.stream().filter(env::contains).count();
                assertThat(own).as("admin passwords in the env of " + id).isLessThanOrEqualTo(1);
            }

            record(elsewhere, "release_sandbox", api.verb("canary-a", "release_sandbox", "{}"));
            record(elsewhere, "i_am_done", api.verb("canary-a", "i_am_done", "{}"));
            record(elsewhere, "DELETE agent", api.orchestrator("DELETE", "/api/agents/canary-a", null));
            // The janitor sweeps after everything is released, and whatever it writes (log, audit) is checked too.
            Instant beforeSweep = Instant.now().minusSeconds(1);
            SweepReport sweep = server.sweepNow();
            assertThat(sweep.ok()).as("the janitor swept: %s", sweep.summary()).isTrue();
            assertThat(sweep.started())
                    .as("the sweep ran now, after the releases")
                    .isAfter(beforeSweep);
            elsewhere.put("janitor sweep report", sweep.toString());
            record(elsewhere, "GET /api/audit", api.admin("GET", "/api/audit?limit=1000", null));
        } finally {
            System.setOut(out);
            System.setErr(err);
            root.detachAppender(capture);
            root.setLevel(rootLevel);
            jetty.setLevel(jettyLevel);
            leaky.forEach(Logger::setLevel);
        }
        elsewhere.put("server log (all loggers, DEBUG)", logged.toString());
        elsewhere.put("stdout+stderr", console.toString());

        List<String> leaks = new ArrayList<>();
        elsewhere.forEach((where, text) -> {
            if (text != null && text.contains(CanarySecretSource.MARK)) {
                int at = text.indexOf(CanarySecretSource.MARK);
                leaks.add(where + ": …" + text.substring(Math.max(0, at - 80), Math.min(text.length(), at + 6)) + "…");
            }
        });
        Fixtures.figure("CanaryLeakIT leaks found: " + leaks.size() + " (places checked " + elsewhere.size()
                + ", canary passwords issued " + CANARY.issued.size() + ", log lines captured "
                + logged.toString().lines().count() + ")");
        assertThat(leaks).isEmpty();
    }

    private static void record(Map<String, String> where, String what, ApiClient.Reply reply) {
        where.put(what + " (HTTP " + reply.status() + ")", reply.body());
    }

    /** Writes to the real stream and to a capture. */
    private static final class Tee extends OutputStream {
        private final OutputStream a;
        private final OutputStream b;

        Tee(OutputStream a, OutputStream b) {
            this.a = a;
            this.b = b;
        }

        @Override
        public void write(int c) throws IOException {
            a.write(c);
            b.write(c);
        }

        @Override
        public void write(byte[] buf, int off, int len) throws IOException {
            a.write(buf, off, len);
            b.write(buf, off, len);
        }
    }
}
