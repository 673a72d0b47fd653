package io.roboco.sandbox.hostile;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.classic.spi.ThrowableProxyUtil;
import ch.qos.logback.core.AppenderBase;
import io.roboco.sandbox.it.InProcessServer;
import io.roboco.sandbox.it.Probe;
import io.roboco.sandbox.mcp.TypeScriptMcpClient;
import io.roboco.sandbox.testkit.ApiClient;
import io.roboco.sandbox.testkit.InProcessServerExtension;
import java.io.ByteArrayInputStream;
import java.io.InputStream;
import java.io.SequenceInputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.slf4j.LoggerFactory;

/**
 * The edge under attack (containment, issue 18 items 5, 7 and 8), by an agent holding its own MCP token, driven with
 * the official MCP TypeScript client against the real server, real Docker and real Postgres/Redis:
 * <ul>
 *   <li><b>fair share</b>: the attacker locks a table in its own sandbox and fires a burst of queries on it, each of which
 *       would hold a server thread until its statement timeout; beyond its concurrent share they are refused retryably
 *       at once, and while its share is tied up {@code /healthz} and a bystander's cache hit stay fast; then it runs
 *       into its calls-per-minute share;</li>
 *   <li><b>sessions</b>: it opens more MCP sessions than its share (429 with Retry-After); idle ones expire;</li>
 *   <li><b>identity</b>: re-spawning and deleting the agent ends its token and its named sandbox; a CI job's owner is
 *       {@code job:<name>} and an agent spawned under that name inherits nothing;</li>
 *   <li><b>bodies</b>: a 300 KB sign-in form, a 50 MB chunked project body and a 2 MB MCP message are answered 413,
 *       never 500 and never a dropped connection, and nothing is written.</li>
 * </ul>
 * Each prints a {@code [figure]} line; a bystander of another project is unharmed after each; nothing logs
 * {@code OutOfMemoryError}.
 */
@SuppressWarnings("unchecked")
@Timeout(value = 300, unit = TimeUnit.SECONDS)
class HostileEdgeIT {
    private static final int CONCURRENT = 3;
    private static final int PER_MINUTE = 40;
    private static final int SESSIONS = 3;
    private static final String SESSION_IDLE = "20s";

    @RegisterExtension
    static final InProcessServerExtension<InProcessServer> SERVER =
            InProcessServerExtension.startedBeforeAll(stateDir -> InProcessServer.withSettings(
                    stateDir,
                    Map.of(
                            "ROBOCO_SANDBOX_MCP_MAX_CONCURRENT_CALLS", Integer.toString(CONCURRENT),
                            "ROBOCO_SANDBOX_MCP_CALLS_PER_MINUTE", Integer.toString(PER_MINUTE),
                            "ROBOCO_SANDBOX_MCP_MAX_SESSIONS", Integer.toString(SESSIONS),
                            "ROBOCO_SANDBOX_MCP_SESSION_IDLE", SESSION_IDLE)));

    private static final OomWatch OOM = new OomWatch();
    private static Bystander bystander;

    @BeforeAll
    static void bystanderStands() throws InterruptedException {
        OOM.start();
        bystander = Bystander.standing(api(), "edge-bystander");
    }

    @AfterAll
    static void noOutOfMemory() {
        OOM.stop();
        assertThat(OOM.seen()).as("the server logged OutOfMemoryError").isEmpty();
    }

    private static ApiClient api() {
        return SERVER.server().api;
    }

    private static String mcpUrl() {
        return "http://127.0.0.1:" + SERVER.server().port() + "/mcp";
    }

    private static String mint(String slug) {
        ApiClient.Reply r = api().orchestrator(
                        "POST", "/api/agents/" + slug + "/token", "{\"toolsets\":[\"core\",\"inspect\",\"data\"]}");
        assertThat(r.status()).as("%s", r).isEqualTo(200);
        return (String) r.json().get("token");
    }

    // --- fair share ---------------------------------------------------------------------------

    @Test
    void oneAgentSaturatingItsShareLeavesTheServerAndOtherAgentsFast() throws Exception {
        api().working("edge-hog", "hog", "[\"postgres\"]");
        ApiClient.Reply granted = api().requestSandboxRetrying("edge-hog", 3);
        assertThat(granted.ok()).as("%s", granted).isTrue();
        Map<String, String> pg = granted.grants().get("postgres");
        List<Long> quietHealth =
                timings(20, () -> assertThat(Bystander.healthy(api())).isTrue());
        List<Long> quietHit = timings(
                10,
                () -> assertThat(api().requestSandbox("edge-bystander").ok()).isTrue());

        int burst = 30;
        try (Connection lock = connect(pg);
                Connection watch = connect(pg);
                TypeScriptMcpClient hog = TypeScriptMcpClient.http(mcpUrl(), mint("edge-hog"))) {
            try (Statement s = lock.createStatement()) {
                s.execute("CREATE TABLE held (id int)");
            }
            lock.setAutoCommit(false);
            assertThat(hog.connect().ok()).isTrue();
            TypeScriptMcpClient.Answer probe = hog.call("run_readonly_query", Map.of("sql", "SELECT * FROM held"));
            assertThat(probe.isError())
                    .as("the attacker's query on its own table runs: %s", probe.json())
                    .isFalse();
            try (Statement s = lock.createStatement()) {
                s.execute("LOCK TABLE held IN ACCESS EXCLUSIVE MODE");
            }
            CompletableFuture<List<Map<String, Object>>> fired = CompletableFuture.supplyAsync(
                    () -> hog.burst("run_readonly_query", Map.of("sql", "SELECT * FROM held"), burst));
            // The admitted calls are those waiting on the lock inside the attacker's own Postgres: outcome, not a
            // sleep.
            // (One inspector connection per sandbox: one admitted call waits on the lock, the others behind it in the
            // server.)
            int waiting;
            try {
                waiting = awaitLockWaiters(watch, 1, 60_000);
            } catch (AssertionError e) {
                lock.rollback();
                throw new AssertionError(
                        e.getMessage() + "; the burst answered " + fired.get(120, TimeUnit.SECONDS), e);
            }
            List<Long> loadedHealth =
                    timings(20, () -> assertThat(Bystander.healthy(api())).isTrue());
            List<Long> loadedHit = timings(
                    10,
                    () -> assertThat(api().requestSandbox("edge-bystander").ok())
                            .isTrue());
            lock.rollback();
            List<Map<String, Object>> results = fired.get(120, TimeUnit.SECONDS);

            int refused = 0;
            for (Map<String, Object> r : results) {
                Map<String, Object> structured = (Map<String, Object>) r.get("structured");
                if (structured != null && "refused".equals(structured.get("error"))) {
                    refused++;
                    assertThat(structured).containsEntry("retryable", true);
                    assertThat(((Number) structured.get("retry_after_seconds")).intValue())
                            .isBetween(1, 60);
                    assertThat((String) structured.get("reason")).contains("ROBOCO_SANDBOX_MCP_MAX_CONCURRENT_CALLS");
                }
            }
            assertThat(refused)
                    .as("refused beyond the concurrent share, of %d: %s", burst, results)
                    .isGreaterThanOrEqualTo(burst - 2 * CONCURRENT);
            long healthBudget = Math.max(250, 10 * median(quietHealth));
            long hitBudget = Math.max(500, 10 * median(quietHit));
            assertThat(median(loadedHealth))
                    .as("/healthz p50 while one agent saturates (quiet %s ms)", median(quietHealth))
                    .isLessThanOrEqualTo(healthBudget);
            assertThat(median(loadedHit))
                    .as("another agent's cache hit p50 while one agent saturates (quiet %s ms)", median(quietHit))
                    .isLessThanOrEqualTo(hitBudget);
            Bystander.figure(
                    "fair-share-concurrent",
                    burst,
                    refused,
                    Bystander.healthy(api()),
                    "admitted=" + (burst - refused)
                            + " limit=" + CONCURRENT
                            + " healthz_p50_ms quiet=" + median(quietHealth) + " loaded=" + median(loadedHealth)
                            + " max_loaded=" + max(loadedHealth)
                            + " bystander_hit_p50_ms quiet=" + median(quietHit) + " loaded=" + median(loadedHit));

            // Calls per minute: quick calls until the share of the minute is spent (the burst's admitted ones count).
            int attempts = 0;
            Map<String, Object> over = null;
            while (attempts < PER_MINUTE + 5 && over == null) {
                attempts++;
                TypeScriptMcpClient.Answer a = hog.call("list_sandboxes", Map.of());
                if (a.ok() && a.isError() && "refused".equals(a.structured().get("error"))) {
                    over = a.structured();
                }
            }
            assertThat(over).as("refused within %d calls", PER_MINUTE + 5).isNotNull();
            assertThat(over).containsEntry("retryable", true);
            assertThat((String) over.get("reason"))
                    .contains("ROBOCO_SANDBOX_MCP_CALLS_PER_MINUTE")
                    .contains("retry in");
            Bystander.figure(
                    "fair-share-per-minute",
                    attempts,
                    1,
                    Bystander.healthy(api()),
                    "refused_after=" + attempts + " retry_after_seconds=" + over.get("retry_after_seconds"));
        }
        try (Connection c = connect(pg);
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT count(*) FROM held")) {
            rs.next();
            assertThat(rs.getInt(1)).as("the attacker's own table is as it was").isZero();
        }
        bystander.assertUnharmed();
    }

    private static Connection connect(Map<String, String> pg) throws SQLException {
        return DriverManager.getConnection(
                "jdbc:postgresql://" + pg.get("ROBOCO_TEST_DB_HOST") + ":" + pg.get("ROBOCO_TEST_DB_PORT") + "/"
                        + pg.get("ROBOCO_TEST_DB_NAME"),
                pg.get("ROBOCO_TEST_DB_USER"),
                pg.get("ROBOCO_TEST_DB_PASSWORD"));
    }

    /**
     * Sessions of the attacker's Postgres waiting on a lock, once at least {@code atLeast} are (bounded by a deadline). Asked
     * on an autocommit connection: inside one transaction pg_stat_activity is a snapshot.
     */
    private static int awaitLockWaiters(Connection c, int atLeast, long millis) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(millis);
        int seen = 0;
        while (System.nanoTime() < deadline) {
            try (Statement s = c.createStatement();
                    ResultSet rs = s.executeQuery(
                            "SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query ILIKE '%held%'")) {
                rs.next();
                seen = rs.getInt(1);
            }
            if (seen >= atLeast) {
                return seen;
            }
            Thread.onSpinWait();
        }
        throw new AssertionError("only " + seen + " admitted calls reached the lock within " + millis + " ms");
    }

    // --- sessions -----------------------------------------------------------------------------

    @Test
    void sessionsBeyondTheShareAreRefusedAndIdleOnesExpire() throws Exception {
        api().working("edge-sessions", "sess", "[\"redis\"]");
        String token = mint("edge-sessions");
        List<TypeScriptMcpClient> open = new ArrayList<>();
        try {
            // Every client process first (Node starts slowly on a loaded machine), then the sessions one after another.
            for (int i = 0; i <= SESSIONS; i++) {
                open.add(TypeScriptMcpClient.http(mcpUrl(), token));
            }
            for (int i = 0; i < SESSIONS; i++) {
                assertThat(open.get(i).connect().ok())
                        .as("session %d of %d", i + 1, SESSIONS)
                        .isTrue();
            }
            TypeScriptMcpClient.Answer refused = open.get(SESSIONS).connect();
            assertThat(refused.ok()).isFalse();
            assertThat(refused.error().get("code")).as("%s", refused.error()).isEqualTo(429);
            HttpResponse<String> raw = initialize(token);
            assertThat(raw.statusCode()).isEqualTo(429);
            long retryAfter =
                    Long.parseLong(raw.headers().firstValue("Retry-After").orElseThrow());
            assertThat(retryAfter).isBetween(1L, 20L);
            assertThat(raw.body()).contains("ROBOCO_SANDBOX_MCP_MAX_SESSIONS");
            // Idle sessions expire: an initialize is admitted again once the least recently used one has been idle 20
            // s.
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            int attempts = 2;
            int status = 429;
            while (status == 429 && System.nanoTime() < deadline) {
                TimeUnit.MILLISECONDS.sleep(500); // a poll interval, not a race: the outcome ends the loop
                status = initialize(token).statusCode();
                attempts++;
            }
            assertThat(status).as("an initialize after the idle expiry").isEqualTo(200);
            Bystander.figure(
                    "mcp-sessions",
                    attempts,
                    attempts - 1,
                    Bystander.healthy(api()),
                    "cap=" + SESSIONS + " idle=" + SESSION_IDLE + " retry_after_s=" + retryAfter);
        } finally {
            open.forEach(TypeScriptMcpClient::close);
        }
        bystander.assertUnharmed();
    }

    // --- identity -----------------------------------------------------------------------------

    @Test
    void respawnAndDeleteEndTheTokenAndTheNamedSandbox() throws Exception {
        api().working("edge-ghost", "ghost", "[\"postgres\",\"redis\"]");
        ApiClient.Reply named = api().admin(
                        "POST",
                        "/api/sandboxes",
                        "{\"owner\":\"edge-ghost\",\"project\":\"ghost\",\"name\":\"side\","
                                + "\"services\":[\"redis\"]}");
        assertThat(named.status()).as("%s", named).isEqualTo(200);
        Map<String, String> redis = grantOf(named, "redis");
        int attempts = 0;
        int refused = 0;
        try (TypeScriptMcpClient first = TypeScriptMcpClient.http(mcpUrl(), mint("edge-ghost"))) {
            assertThat(first.connect().ok()).isTrue();
            assertThat(first.call("list_sandboxes", Map.of()).isError()).isFalse();
            api().working("edge-ghost", "ghost", "[\"postgres\",\"redis\"]");
            attempts++;
            TypeScriptMcpClient.Answer after = first.call("list_sandboxes", Map.of());
            assertThat(after.ok())
                    .as("the earlier engagement's token after a re-spawn")
                    .isFalse();
            assertThat(after.error().get("code")).isEqualTo(401);
            refused++;
        }
        assertThat(live("edge-ghost"))
                .as("the earlier engagement's named sandbox")
                .isEmpty();
        assertThat(Probe.tryUse("redis", redis))
                .as("its credentials no longer work")
                .isNotNull();

        try (TypeScriptMcpClient second = TypeScriptMcpClient.http(mcpUrl(), mint("edge-ghost"))) {
            assertThat(second.connect().ok()).isTrue();
            assertThat(api().orchestrator("DELETE", "/api/agents/edge-ghost", null)
                            .json())
                    .containsEntry("token_revoked", true);
            attempts++;
            TypeScriptMcpClient.Answer after = second.call("list_sandboxes", Map.of());
            assertThat(after.ok()).isFalse();
            assertThat(after.error().get("code")).isEqualTo(401);
            refused++;
        }

        // A CI job is job:<name>; an agent spawned under the same name sees none of it.
        attempts++;
        ApiClient.Reply bare = api().admin(
                        "POST",
                        "/api/sandboxes",
                        "{\"owner\":\"edge-ci\",\"project\":\"ghost\",\"services\":[\"redis\"]}");
        assertThat(bare.status()).isEqualTo(400);
        refused++;
        ApiClient.Reply job = api().admin(
                        "POST",
                        "/api/sandboxes",
                        "{\"owner\":\"job:edge-ci\",\"project\":\"ghost\",\"services\":[\"redis\"]}");
        assertThat(job.status()).as("%s", job).isEqualTo(200);
        Map<String, String> jobRedis = grantOf(job, "redis");
        api().working("edge-ci", "ghost", "[\"postgres\",\"redis\"]");
        try (TypeScriptMcpClient ci = TypeScriptMcpClient.http(mcpUrl(), mint("edge-ci"))) {
            assertThat(ci.connect().ok()).isTrue();
            attempts++;
            TypeScriptMcpClient.Answer listed = ci.call("list_sandboxes", Map.of());
            assertThat(listed.text())
                    .doesNotContain((String) ((Map<String, Object>) job.json().get("sandbox")).get("id"));
            refused++;
        }
        assertThat(Probe.tryUse("redis", jobRedis))
                .as("the CI job's sandbox keeps working")
                .isNull();
        Bystander.figure(
                "identity",
                attempts,
                refused,
                Bystander.healthy(api()),
                "respawn_token=401 delete_token=401 named_sandbox_ended=true" + " job_owner_separate=true");
        bystander.assertUnharmed();
    }

    private static Map<String, String> grantOf(ApiClient.Reply created, String service) {
        Map<String, Object> sandbox = (Map<String, Object>) created.json().get("sandbox");
        for (Map<String, Object> s : (List<Map<String, Object>>) sandbox.get("services")) {
            if (service.equals(s.get("service"))) {
                return (Map<String, String>) s.get("env");
            }
        }
        throw new AssertionError("no " + service + " in " + created);
    }

    private static List<Object> live(String owner) {
        return (List<Object>) api().admin("GET", "/api/sandboxes?owner=" + owner + "&state=live", null)
                .json()
                .get("sandboxes");
    }

    // --- bodies -------------------------------------------------------------------------------

    @Test
    void oversizedBodiesAre413NeverA500NorADroppedConnection() throws Exception {
        int attempts = 0;
        int refused = 0;
        List<String> statuses = new ArrayList<>();
        byte[] form = ("token=" + "x".repeat(300 << 10)).getBytes(StandardCharsets.UTF_8);
        for (boolean chunked : new boolean[] {false, true}) {
            HttpResponse<String> r =
                    send("POST", "/login", null, "application/x-www-form-urlencoded", form.length, chunked);
            attempts++;
            statuses.add("form" + (chunked ? "-chunked" : "") + "=" + r.statusCode());
            assertThat(r.statusCode()).isEqualTo(413);
            refused++;
        }
        for (boolean chunked : new boolean[] {false, true}) {
            HttpResponse<String> r = send(
                    "PUT", "/api/projects/edge-huge", ApiClient.ADMIN_TOKEN, "application/json", 50 << 20, chunked);
            attempts++;
            statuses.add("project-50MB" + (chunked ? "-chunked" : "") + "=" + r.statusCode());
            assertThat(r.statusCode()).isEqualTo(413);
            assertThat(r.body()).contains("ROBOCO_SANDBOX_MAX_BODY");
            refused++;
        }
        HttpResponse<String> mcp = send("POST", "/mcp", mint("edge-bystander"), "application/json", 2 << 20, true);
        attempts++;
        statuses.add("mcp-2MB-chunked=" + mcp.statusCode());
        assertThat(mcp.statusCode()).isEqualTo(413);
        refused++;
        assertThat(api().admin("GET", "/api/projects/edge-huge", null).status())
                .as("nothing was written")
                .isEqualTo(404);
        Bystander.figure("bodies", attempts, refused, Bystander.healthy(api()), String.join(" ", statuses));
        bystander.assertUnharmed();
    }

    // --- plumbing -----------------------------------------------------------------------------

    private static HttpResponse<String> initialize(String token) throws Exception {
        HttpRequest request = HttpRequest.newBuilder(URI.create(mcpUrl()))
                .header("Content-Type", "application/json")
                .header("Accept", "application/json, text/event-stream")
                .header("Authorization", "Bearer " + token)
                .POST(
                        HttpRequest.BodyPublishers.ofString(
                                "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":"
                                        + "{\"protocolVersion\":\"2025-06-18\",\"capabilities\":{},\"clientInfo\":{\"name\":\"edge\",\"version\":\"1\"}}}"))
                .build();
        return HttpClient.newHttpClient().send(request, HttpResponse.BodyHandlers.ofString());
    }

    /** {@code size} bytes of a JSON string value (or a form field), streamed, declared or chunked. */
    private static HttpResponse<String> send(
            String method, String path, String token, String type, int size, boolean chunked) throws Exception {
        byte[] head =
                type.startsWith("application/json") ? "{\"name\":\"".getBytes(StandardCharsets.UTF_8) : new byte[0];
        Supplier<InputStream> body = () -> new SequenceInputStream(
                new ByteArrayInputStream(head), new RepeatingStream((byte) 'a', size - head.length));
        HttpRequest.BodyPublisher publisher = chunked
                ? HttpRequest.BodyPublishers.ofInputStream(body)
                : HttpRequest.BodyPublishers.fromPublisher(HttpRequest.BodyPublishers.ofInputStream(body), size);
        HttpRequest.Builder b = HttpRequest.newBuilder(
                        URI.create("http://127.0.0.1:" + SERVER.server().port() + path))
                .header("Content-Type", type)
                .header("Accept", "application/json, text/event-stream")
                .method(method, publisher);
        if (token != null) {
            b.header("Authorization", "Bearer " + token);
        }
        return HttpClient.newBuilder()
                .version(HttpClient.Version.HTTP_1_1)
                .build()
                .send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    /** {@code n} copies of one byte, never all in memory. */
    private static final class RepeatingStream extends InputStream {
        private final byte value;
        private long left;

        RepeatingStream(byte value, long n) {
            this.value = value;
            this.left = n;
        }

        @Override
        public int read() {
            if (left <= 0) {
                return -1;
            }
            left--;
            return value;
        }

        @Override
        public int read(byte[] b, int off, int len) {
            if (left <= 0) {
                return -1;
            }
            int n = (int) Math.min(len, left);
            Arrays.fill(b, off, off + n, value);
            left -= n;
            return n;
        }
    }

    private interface Step {
        void run() throws Exception;
    }

    private static List<Long> timings(int n, Step step) throws Exception {
        List<Long> out = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            long t0 = System.nanoTime();
            step.run();
            out.add((System.nanoTime() - t0) / 1_000_000);
        }
        return out;
    }

    private static long median(List<Long> values) {
        List<Long> sorted = new ArrayList<>(values);
        Collections.sort(sorted);
        return sorted.get(sorted.size() / 2);
    }

    private static long max(List<Long> values) {
        return Collections.max(values);
    }

    /** Every log event of this JVM carrying an OutOfMemoryError, in its message or its exception. */
    static final class OomWatch extends AppenderBase<ILoggingEvent> {
        private final List<String> seen = Collections.synchronizedList(new ArrayList<>());
        private final Logger root = (Logger) LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);

        @Override
        protected void append(ILoggingEvent e) {
            String text = e.getFormattedMessage()
                    + (e.getThrowableProxy() == null ? "" : ThrowableProxyUtil.asString(e.getThrowableProxy()));
            if (text.contains("OutOfMemoryError")) {
                seen.add(e.getLoggerName() + ": " + e.getFormattedMessage());
            }
        }

        void start0() {
            setContext(root.getLoggerContext());
            super.start();
            root.addAppender(this);
        }

        @Override
        public void start() {
            if (!isStarted()) {
                start0();
            }
        }

        @Override
        public void stop() {
            root.detachAppender(this);
            super.stop();
        }

        List<String> seen() {
            return List.copyOf(seen);
        }
    }
}
