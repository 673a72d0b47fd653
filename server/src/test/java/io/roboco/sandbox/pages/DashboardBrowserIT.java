package io.roboco.sandbox.pages;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.roboco.sandbox.engine.EngineRegistry;
import io.roboco.sandbox.provision.LocalImages;
import io.roboco.sandbox.provision.SandboxLabels;
import io.roboco.sandbox.runtime.docker.DockerContainerRuntime;
import io.roboco.sandbox.server.RunningServer;
import io.roboco.sandbox.server.SandboxServer;
import io.roboco.sandbox.server.config.ServerConfig;
import io.roboco.sandbox.store.JdbcSettingsStore;
import io.roboco.sandbox.web.Cookies;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;
import org.openqa.selenium.support.ui.Select;

/**
 * The operator's path through the dashboard in headless Chromium, against the real server over
 * real Docker and the local images: sign in, flip the flag (pending restart), opt a project into
 * Postgres + Redis with pg_trgm and search, have a save refused, restart the server (the flag
 * becomes effective), request a sandbox through the HTTP API, see it live, release it from the
 * page, read the audit. Each page is saved under {@code target/screenshots/}.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class DashboardBrowserIT {
    static final String API = "api-token-browser-0123456789";
    static final String ADMIN = "admin-token-browser-0123456789";

    private Path stateDir;
    private ServerConfig config;
    private RunningServer server;
    private String instanceId;
    private Browser browser;
    private WebClient api;
    private String grantedEnvelope;

    @BeforeAll
    void start() throws Exception {
        LocalImages.requireDockerAndImages().close(); // fails (never skips) with what to run
        stateDir = Files.createTempDirectory("roboco-dashboard-it-");
        Map<String, String> env = new HashMap<>();
        env.put("ROBOCO_SANDBOX_STATE_DIR", stateDir.toString());
        env.put("ROBOCO_SANDBOX_NETWORK", "host");
        env.put("ROBOCO_SANDBOX_API_TOKEN", API);
        env.put("ROBOCO_SANDBOX_ADMIN_TOKEN", ADMIN);
        LocalImages.IMAGES.forEach((engine, image) -> env.put(ServerConfig.IMAGE_PREFIX + engine.toUpperCase(), image));
        config = ServerConfig.fromEnv(env).withPort(0); // no flag override: the stored value decides at start
        startServer();
        browser = new Browser();
        browser.base(server.port());
    }

    /** A fresh process's worth of server over the same state dir: new store handle, runtime and sessions. */
    private void startServer() {
        server = SandboxServer.start(
                config,
                DockerContainerRuntime.connect(),
                EngineRegistry.defaults(),
                JdbcSettingsStore.embedded(stateDir),
                Clock.systemUTC());
        instanceId = server.instanceId();
        api = new WebClient(server.port());
    }

    @AfterAll
    void stop() {
        try {
            if (browser != null) {
                browser.close();
            }
        } finally {
            if (server != null) {
                server.close();
            }
            if (instanceId != null) {
                String ids = LocalImages.docker(
                                "ps", "-aq", "--filter", "label=" + SandboxLabels.INSTANCE + "=" + instanceId)
                        .trim();
                if (!ids.isEmpty()) {
                    List<String> rm = new ArrayList<>(List.of("rm", "-f"));
                    rm.addAll(List.of(ids.split("\\s+")));
                    LocalImages.docker(rm.toArray(new String[0]));
                }
            }
            deleteQuietly(stateDir); // tokens and the embedded database of this run
        }
    }

    private static void deleteQuietly(Path dir) {
        if (dir == null) {
            return;
        }
        try (Stream<Path> files = Files.walk(dir)) {
            files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException ignored) {
            // a temp dir left behind is harmless
        }
    }

    @Test
    @Order(1)
    void signsInWithTheAdminToken() {
        browser.open("/sandboxes");
        assertThat(browser.path()).isEqualTo("/login");
        browser.screenshot("01-sign-in");
        signIn();
        assertThat(browser.path()).isEqualTo("/sandboxes");
        assertThat(browser.text("h1")).isEqualTo("Live sandboxes");
        assertThat(browser.driver.manage().getCookieNamed(Cookies.SESSION).isHttpOnly())
                .isTrue();
    }

    @Test
    @Order(2)
    void flippingTheFlagShowsPendingRestart() {
        browser.clickAndWait("nav a[href='/flags']");
        assertThat(browser.has("#pending-restart")).isFalse();
        browser.check("flag-enabled", true);
        browser.clickAndWait("#flag-save");
        assertThat(browser.text("#flash")).contains("takes effect on the next backend restart");
        assertThat(browser.text("#pending-restart")).isEqualTo("pending restart");
        assertThat(browser.text("#flag-stored")).isEqualTo("on");
        assertThat(browser.text("#flag-effective")).isEqualTo("off");
        browser.screenshot("02-feature-flags-pending-restart");
        assertThat(api.json("GET", "/api/flags", ADMIN, null).body()).contains("\"pending_restart\":true");
    }

    @Test
    @Order(3)
    void optsAProjectIntoPostgresAndRedisWithPgTrgmAndSearch() {
        browser.clickAndWait("nav a[href='/projects']");
        browser.find("#new-id").sendKeys("shop");
        browser.find("#new-name").sendKeys("Shop backend");
        browser.clickAndWait("#add-project");
        assertThat(browser.path()).isEqualTo("/projects/shop");
        assertThat(browser.find("#ver-postgres option[value='']")
                        .getAttribute("textContent")
                        .trim())
                .as("the default image and its major")
                .isEqualTo("server default image (PostgreSQL 15, roboco-sandbox/postgres:15)");
        browser.check("svc-postgres", true);
        browser.check("feat-postgres-pg_trgm", true);
        browser.check("svc-redis", true);
        browser.check("feat-redis-search", true);
        browser.clickAndWait("#save-project");
        assertThat(browser.text("#flash")).contains("next request_sandbox provisions postgres, redis");
        browser.screenshot("04-project-settings-sandbox-card");
        // What the card saved, field by field (the project answer carries more fields: versions, TTLs, limits).
        Map<String, Object> saved =
                parse(api.json("GET", "/api/projects/shop", ADMIN, null).body());
        assertThat(saved)
                .containsEntry("id", "shop")
                .containsEntry("name", "Shop backend")
                .containsEntry("sandbox_services", List.of("postgres", "redis"))
                .containsEntry(
                        "sandbox_extensions", Map.of("postgres", List.of("pg_trgm"), "redis", List.of("search")));
        browser.clickAndWait("nav a[href='/projects']");
        assertThat(browser.text("#projects"))
                .contains("Shop backend")
                .contains("postgres: pg_trgm")
                .contains("redis: search");
        browser.screenshot("03-projects");
    }

    /**
     * The Sandbox card at the widths operators' screens have (1280, 1366, 1920 px): a screenshot of each under
     * {@code target/screenshots/}, and the geometry of every service box read from the page: no two intersect, each
     * stays inside the card, no child (version select, limit fields, extension checkboxes) leaves its box, and no
     * select is narrower than its text.
     */
    @Test
    @Order(4)
    void theSandboxCardsServiceBoxesFitAtCommonWidths() {
        browser.open("/projects/shop");
        assertThat(BoxLayout.count(browser, "#sandbox-card", "fieldset.engine"))
                .as("one box per registered engine: PostgreSQL, Redis, MongoDB")
                .isEqualTo(3);
        try {
            for (int width : List.of(1280, 1366, 1920)) {
                browser.viewport(width, 900);
                browser.screenshot("04b-sandbox-card-" + width);
                assertThat(BoxLayout.problems(browser, "#sandbox-card", "fieldset.engine"))
                        .as("the Sandbox card's service boxes at %d px", width)
                        .isEmpty();
            }
        } finally {
            browser.viewport(1366, 900);
        }
        browser.open("/projects"); // where the next step starts
    }

    @Test
    @Order(5)
    void anExtensionWithoutItsServiceIsRefusedAndNothingSaved() {
        browser.clickAndWait("a[href='/projects/shop']");
        browser.check("svc-postgres", false); // pg_trgm stays checked
        browser.clickAndWait("#save-project");
        assertThat(browser.text("#flash"))
                .contains("Not saved")
                .contains("not in sandbox_services")
                .contains("nothing saved");
        browser.screenshot("05-project-refused-save");
        assertThat(api.json("GET", "/api/projects/shop", ADMIN, null).body())
                .contains("\"sandbox_services\":[\"postgres\",\"redis\"]");
    }

    @Test
    @Order(6)
    void afterARestartTheFlagIsEffectiveAndTheSessionIsGone() {
        server.close();
        server = null;
        startServer();
        browser.base(server.port());
        browser.open("/flags");
        assertThat(browser.path())
                .as("sessions live in memory; a restart signs out")
                .isEqualTo("/login");
        signIn();
        browser.open("/flags");
        assertThat(browser.has("#pending-restart")).isFalse();
        assertThat(browser.text("#flag-effective")).isEqualTo("on");
        browser.screenshot("02b-feature-flags-after-restart");
    }

    @Test
    @Order(7)
    void aSandboxRequestedThroughTheApiIsOnTheLivePage() {
        String seed = "create table orders (id int primary key);";
        WebClient.Reply seeded = api.json(
                "PUT",
                "/api/projects/shop",
                ADMIN,
                "{\"name\":\"Shop backend\",\"sandbox_services\":[\"postgres\",\"redis\"],"
                        + "\"sandbox_extensions\":{\"postgres\":[\"pg_trgm\"],\"redis\":[\"search\"]},\"sandbox_seed\":{\"postgres\":{\"sql\":\""
                        + seed + "\"}}}");
        assertThat(seeded.status()).as(seeded.body()).isEqualTo(200);
        assertThat(api.json("POST", "/api/agents/dev-1/spawn", API, "{\"role\":\"developer\",\"project\":\"shop\"}")
                        .body())
                .contains("ROBOCO_SANDBOX_SERVICES_AVAILABLE");
        assertThat(api.json(
                                "POST",
                                "/api/agents/dev-1/verbs/give_me_work",
                                API,
                                "{\"project\":\"shop\",\"task\":\"T-7\"}")
                        .body())
                .contains("\"ok\":true");
        WebClient.Reply granted =
                api.json("POST", "/api/agents/dev-1/verbs/request_sandbox", API, "{\"services\":[\"postgres\"]}");
        assertThat(granted.body()).as(redact(granted.body())).contains("\"ok\":true");
        grantedEnvelope = granted.body();

        browser.clickAndWait("nav a[href='/sandboxes']");
        String row = browser.text("tr[data-agent='dev-1']");
        assertThat(row)
                .contains("dev-1")
                .contains("shop")
                .contains("postgres")
                .contains("redis")
                .contains("pg_trgm")
                .contains("search")
                .contains("unchecked");
        assertThat(browser.text("tr[data-agent='dev-1'] [data-service='postgres']"))
                .as("its major and the seed it started with")
                .contains("PostgreSQL 15")
                .contains("seed: sql (" + seed.length() + " bytes)");
        assertThat(browser.text("tr[data-agent='dev-1'] [data-service='redis']"))
                .doesNotContain("seed");
        browser.clickAndWait("tr[data-agent='dev-1'] form[action$='/verify'] button");
        assertThat(browser.text("#flash")).contains("every service answered");
        assertThat(browser.text("tr[data-agent='dev-1']")).contains("live");
        browser.screenshot("06-live-sandboxes");
        for (String secret : secrets(grantedEnvelope)) {
            assertThat(browser.driver.getPageSource()).doesNotContain(secret);
        }
        List<String> containers = ids();
        assertThat(containers).hasSize(2);
        for (String id : containers) {
            assertThat(row).contains(id.substring(0, 12));
        }
    }

    /**
     * After a few requests (the grant above and two cache hits) the Sandboxes page's chart of the last hour shows
     * them: three granted requests, one live sandbox, a latency dot drawn inside its chart, the two charts side by side
     * without overlapping. The chart is inline SVG from the server (the page runs no script and fetches nothing else).
     */
    @Test
    @Order(8)
    void theSandboxesPageChartsTheLastHourAfterAFewRequests() {
        for (int i = 0; i < 2; i++) {
            WebClient.Reply hit =
                    api.json("POST", "/api/agents/dev-1/verbs/request_sandbox", API, "{\"services\":[\"postgres\"]}");
            assertThat(hit.body()).as(redact(hit.body())).contains("\"ok\":true");
        }
        browser.open("/sandboxes");
        assertThat(browser.find("#activity").isDisplayed()).isTrue();
        assertThat(browser.find("#activity").getAttribute("data-requests")).isEqualTo("3");
        assertThat(browser.find("#activity").getAttribute("data-live")).isEqualTo("1");
        assertThat(browser.text("#activity-latency figcaption")).contains("3 granted requests, mean ");
        assertThat(browser.text("#activity-live figcaption")).contains("1 now, peak 1");
        Object drawn = browser.script("""
                const svg = document.querySelector('#activity-latency svg').getBoundingClientRect();
                const dots = [...document.querySelectorAll('#activity-latency circle.chart-dot')];
                const live = document.querySelector('#activity-live path.chart-series').getBoundingClientRect();
                return dots.length > 0 && live.width > 0 && svg.width > 0 && dots.every(d => {
                  const r = d.getBoundingClientRect();
                  return r.width > 0 && r.left >= svg.left && r.right <= svg.right && r.top >= svg.top && r.bottom <= svg.bottom;
                });
                """);
        assertThat(drawn)
                .as("latency dots drawn inside their chart, the live line drawn")
                .isEqualTo(true);
        assertThat(BoxLayout.problems(browser, "#activity", "figure.chart")).isEmpty();
        browser.screenshot("06b-sandboxes-last-hour");
    }

    @Test
    @Order(9)
    void releasingFromThePageTearsTheSandboxDown() {
        browser.clickAndWait("#release-dev-1");
        assertThat(browser.text("#flash")).contains("Released dev-1").contains("2 container(s) removed");
        assertThat(browser.has("tr[data-agent='dev-1']")).isFalse();
        assertThat(ids()).isEmpty();
    }

    @Test
    @Order(10)
    void theAuditShowsTheCallsNewestFirstAndFilters() {
        browser.clickAndWait("nav a[href='/audit']");
        String table = browser.text("#audit");
        assertThat(table.indexOf("dashboard_release")).isPositive().isLessThan(table.indexOf("request_sandbox"));
        assertThat(table).contains("granted").contains("released");
        browser.screenshot("07-audit");
        browser.find("#f-agent").sendKeys("dev-1");
        new Select(browser.find("#f-decision")).selectByValue("released");
        browser.clickAndWait("#filter");
        assertThat(browser.path()).contains("agent=dev-1").contains("decision=released");
        String filtered = browser.text("#audit");
        assertThat(filtered).contains("dashboard_release").doesNotContain("request_sandbox");
        browser.screenshot("08-audit-filtered");
        for (String secret : secrets(grantedEnvelope)) {
            assertThat(browser.driver.getPageSource()).doesNotContain(secret);
        }
    }

    /**
     * An operator mints a CI job's client token on the Clients page: shown once in its field, it works on the API
     * (its owner's sandboxes, 403 on flags), a reload no longer shows it, a bad owner is refused in the API's words,
     * and the Revoke button stops it. The screenshot is taken with the field masked, so no token is in a file.
     */
    @Test
    @Order(11)
    void aClientTokenMintedOnTheClientsPageIsShownOnceAndRevocable() {
        browser.clickAndWait("nav a[href='/clients']");
        browser.find("#client-owner").sendKeys("dev-1");
        browser.clickAndWait("#mint-token");
        assertThat(browser.text("#flash"))
                .contains("No token minted")
                .contains("a client token is for an operator-side owner");
        assertThat(browser.has("#minted-token")).isFalse();
        browser.screenshot("09a-clients-refused-owner");

        browser.find("#client-owner").clear();
        browser.find("#client-owner").sendKeys("job:browser-ci");
        browser.clickAndWait("#mint-token");
        String token = browser.find("#minted-token").getAttribute("value");
        assertThat(token).startsWith("rbxc_");
        assertThat(browser.text("#copy-hint")).contains("Copy it now").contains("shown only this once");
        assertThat(api.json("GET", "/api/sandboxes", token, null).status()).isEqualTo(200);
        assertThat(api.json("GET", "/api/flags", token, null).status()).isEqualTo(403);
        browser.script("document.getElementById('minted-token').value = 'rbxc_' + '\u2022'.repeat(43);");
        browser.screenshot("09b-clients-minted-masked");

        browser.open("/clients");
        assertThat(browser.driver.getPageSource()).doesNotContain(token);
        assertThat(browser.text("#clients")).contains("job:browser-ci");
        browser.clickAndWait("#revoke-job-browser-ci");
        assertThat(browser.text("#flash")).contains("Revoked the client token of job:browser-ci");
        assertThat(browser.has("#clients")).isFalse();
        browser.screenshot("09c-clients-revoked");
        assertThat(api.json("GET", "/api/sandboxes", token, null).status()).isIn(401, 403);
        assertThat(api.json("GET", "/api/audit", ADMIN, null).body()).doesNotContain(token);
    }

    @Test
    @Order(12)
    void signingOutEndsTheSession() {
        browser.clickAndWait("#sign-out");
        assertThat(browser.path()).isEqualTo("/login");
        browser.open("/audit");
        assertThat(browser.path()).isEqualTo("/login");
    }

    private void signIn() {
        browser.find("#token").sendKeys(ADMIN);
        browser.clickAndWait("#sign-in");
    }

    private List<String> ids() {
        String out = LocalImages.docker(
                        "ps",
                        "-aq",
                        "--no-trunc",
                        "--filter",
                        "label=" + SandboxLabels.INSTANCE + "=" + instanceId,
                        "--filter",
                        "label=" + SandboxLabels.AGENT + "=dev-1")
                .trim();
        return out.isEmpty() ? List.of() : List.of(out.split("\\s+"));
    }

    private static List<String> secrets(String envelope) {
        List<String> out = new ArrayList<>();
        Matcher m = Pattern.compile("_(PASSWORD|URL)\":\"([^\"]+)\"").matcher(envelope);
        while (m.find()) {
            out.add(m.group(2));
        }
        assertThat(out).isNotEmpty();
        return out;
    }

    private static String redact(String envelope) {
        return envelope.replaceAll("(PASSWORD|URL)\":\"[^\"]*", "$1\":\"<redacted>");
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> parse(String json) {
        try {
            return new ObjectMapper().readValue(json, Map.class);
        } catch (IOException e) {
            throw new AssertionError("not JSON: " + json, e);
        }
    }
}
