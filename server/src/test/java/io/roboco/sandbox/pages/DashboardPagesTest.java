package io.roboco.sandbox.pages;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.roboco.sandbox.engine.Engine;
import io.roboco.sandbox.engine.EngineRegistry;
import io.roboco.sandbox.provision.Seed;
import io.roboco.sandbox.server.RunningServer;
import io.roboco.sandbox.server.SandboxServer;
import io.roboco.sandbox.server.config.ServerConfig;
import io.roboco.sandbox.settings.AuditRecord;
import io.roboco.sandbox.settings.FlagStore;
import io.roboco.sandbox.settings.Project;
import io.roboco.sandbox.template.DirectoryTemplateStore;
import io.roboco.sandbox.template.TemplateInfo;
import io.roboco.sandbox.testkit.ApiClient;
import io.roboco.sandbox.testkit.FakeContainerRuntime;
import io.roboco.sandbox.testkit.FakeSettingsStore;
import io.roboco.sandbox.testkit.MutableClock;
import io.roboco.sandbox.testkit.StubEngine;
import io.roboco.sandbox.web.Cookies;
import io.roboco.sandbox.web.Dashboard;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The pages over plain HTTP against the in-process server over testkit's fakes (stub engines, fake runtime and store). */
class DashboardPagesTest {
    static final String API = ApiClient.API_TOKEN;
    static final String ADMIN = ApiClient.ADMIN_TOKEN;
    static final List<String> PAGES =
            List.of("/", "/sandboxes", "/projects", "/projects/shop", "/audit", "/flags", "/clients");

    @TempDir
    Path dir;

    final FakeSettingsStore store = new FakeSettingsStore();
    final FakeContainerRuntime runtime = new FakeContainerRuntime();
    RunningServer server;

    @AfterEach
    void stop() {
        if (server != null) {
            server.close();
        }
    }

    WebClient start(Boolean flag) {
        return start(flag, StubEngine.registry());
    }

    WebClient start(Boolean flag, EngineRegistry registry) {
        ServerConfig config =
                ServerConfig.defaults(dir).withPort(0).withFlag(flag).withTokens(API, ADMIN);
        server = SandboxServer.start(config, runtime, registry, store, Clock.systemUTC());
        return new WebClient(server.port());
    }

    WebClient signedIn(Boolean flag) {
        WebClient web = start(flag);
        web.signIn(ADMIN);
        return web;
    }

    @Test
    void pagesWithoutSessionRedirectToSignIn() {
        WebClient web = start(null);
        for (String page : PAGES) {
            WebClient.Reply r = web.get(page);
            assertThat(r.status()).as(page).isEqualTo(303);
            assertThat(r.header("Location")).as(page).isEqualTo("/login");
        }
        assertThat(web.get("/login").body()).contains("Admin token").doesNotContain("Sign out");
    }

    @Test
    void aMistypedPageAddressGetsANotFoundPageWhileApiClientsKeepJson() {
        WebClient web = signedIn(null);

        WebClient.Reply page = web.browse("/sandboxez");
        assertThat(page.status()).isEqualTo(404);
        assertThat(page.header("Content-Type")).startsWith("text/html");
        assertThat(page.body())
                .contains("Not found")
                .contains("There is no page at /sandboxez.")
                .contains("Sign out")
                .doesNotContain("\"error\"");

        WebClient.Reply plain = web.get("/sandboxez");
        assertThat(plain.status()).isEqualTo(404);
        assertThat(plain.body()).contains("\"error\":\"not_found\"");
        WebClient.Reply api = web.json("GET", "/api/nope", ADMIN, null);
        assertThat(api.status()).isEqualTo(404);
        assertThat(api.body()).contains("\"error\":\"not_found\"");
    }

    @Test
    void postsWithoutSessionAre401AndChangeNothing() {
        WebClient web = start(null);
        store.saveProject(new Project("shop", "Shop", List.of("postgres"), Map.of()));
        assertThat(web.post("/flags/" + FlagStore.SANDBOX_DB_ENABLED, "enabled", "true")
                        .status())
                .isEqualTo(401);
        assertThat(web.post("/projects/shop", "service", "redis").status()).isEqualTo(401);
        assertThat(web.post("/projects", "id", "other").status()).isEqualTo(401);
        assertThat(web.post("/sandboxes/dev-1/release").status()).isEqualTo(401);
        assertThat(store.storedFlag(FlagStore.SANDBOX_DB_ENABLED)).isEmpty();
        assertThat(store.allProjects()).containsExactly(new Project("shop", "Shop", List.of("postgres"), Map.of()));
    }

    @Test
    void anyoneMayUseHealthzSignInAndStaticFilesButNothingElseUnderStatic() {
        WebClient web = start(null);
        assertThat(web.get("/healthz").status()).isEqualTo(200);
        assertThat(web.get("/login").status()).isEqualTo(200);
        WebClient.Reply css = web.get("/static/app.css");
        assertThat(css.status()).isEqualTo(200);
        assertThat(css.header("Content-Type")).startsWith("text/css");
        assertThat(web.get("/static/../admin-token").status()).isEqualTo(404);
        assertThat(web.get("/static/logback.xml").status()).isEqualTo(404);
    }

    @Test
    void signInStartsAnHttpOnlyStrictSessionWithoutSecureOnPlainHttp() {
        WebClient web = start(null);
        WebClient.Reply form = web.get("/login");
        WebClient.Reply r = web.post("/login", "csrf", form.csrf(), "token", ADMIN);
        assertThat(r.status()).isEqualTo(303);
        assertThat(r.header("Location")).isEqualTo("/sandboxes");
        String session = r.setCookies().stream()
                .filter(c -> c.startsWith(Cookies.SESSION + "="))
                .findFirst()
                .orElseThrow();
        assertThat(session)
                .contains("; Path=/;")
                .contains("; HttpOnly")
                .contains("; SameSite=Strict")
                .doesNotContain("Secure");
        assertThat(session.split(";")[0].length()).isGreaterThan(Cookies.SESSION.length() + 40);
        WebClient.Reply page = web.get("/sandboxes");
        assertThat(page.status()).isEqualTo(200);
        assertThat(page.body()).contains("Live sandboxes").contains("Sign out");
        assertThat(page.header("Content-Security-Policy")).contains("default-src 'none'");
        assertThat(page.header("Cache-Control")).isEqualTo("no-store");
    }

    @Test
    void wrongTokenIsRefusedAndStartsNoSession() {
        WebClient web = start(null);
        WebClient.Reply form = web.get("/login");
        WebClient.Reply r = web.post("/login", "csrf", form.csrf(), "token", API);
        assertThat(r.status()).isEqualTo(401);
        assertThat(r.body()).contains("not the admin token");
        assertThat(web.cookies).doesNotContainKey(Cookies.SESSION);
        assertThat(web.get("/sandboxes").status()).isEqualTo(303);
    }

    @Test
    void signInFormWithoutItsOwnTokenIsRefused() {
        WebClient web = start(null);
        WebClient.Reply r = web.post("/login", "token", ADMIN);
        assertThat(r.status()).isEqualTo(403);
        assertThat(web.cookies).doesNotContainKey(Cookies.SESSION);
    }

    @Test
    void crossSitePostsWithoutTheSessionsCsrfTokenAreRefusedWithNoSideEffect() throws Exception {
        WebClient web = signedIn(true);
        store.saveProject(new Project("shop", "Shop", List.of("postgres", "redis"), Map.of()));
        grantSandbox(web, "dev-1");
        Project before = store.findProject("shop").orElseThrow();
        int startsBefore = runtime.startCount();

        List<WebClient.Reply> replies = new ArrayList<>();
        for (String csrf : new String[] {null, "", "forged-token", "Zm9yZ2VkLWJ1dC13ZWxsLWZvcm1lZC10b2tlbi0wMDAwMDA"}) {
            List<String> extra = csrf == null ? List.of() : List.of("csrf", csrf);
            replies.add(web.post("/flags/" + FlagStore.SANDBOX_DB_ENABLED, with(extra, "enabled", "true")));
            replies.add(web.post("/projects/shop", with(extra, "service", "mongo")));
            replies.add(web.post("/projects", with(extra, "id", "evil")));
            replies.add(web.post("/sandboxes/dev-1/release", with(extra)));
            replies.add(web.post("/logout", with(extra)));
        }
        assertThat(replies).allSatisfy(r -> {
            assertThat(r.status()).isEqualTo(403);
            assertThat(r.body()).contains("nothing was changed");
        });
        assertThat(store.storedFlag(FlagStore.SANDBOX_DB_ENABLED)).isEmpty();
        assertThat(store.findProject("shop")).contains(before);
        assertThat(store.findProject("evil")).isEmpty();
        assertThat(store.recent(null, "released", 10)).isEmpty();
        assertThat(runtime.runningCount()).isEqualTo(startsBefore);
        assertThat(web.get("/sandboxes").body()).contains("dev-1"); // still signed in, sandbox still live
    }

    @Test
    void getOnAStateChangingRouteDoesNothing() {
        WebClient web = signedIn(true);
        assertThat(web.get("/logout").status()).isIn(404, 405);
        assertThat(web.get("/flags/" + FlagStore.SANDBOX_DB_ENABLED + "?enabled=true")
                        .status())
                .isIn(404, 405);
        assertThat(store.storedFlag(FlagStore.SANDBOX_DB_ENABLED)).isEmpty();
        assertThat(web.get("/sandboxes").status()).isEqualTo(200);
    }

    @Test
    void signOutEndsTheSessionOnTheServer() {
        WebClient web = signedIn(null);
        String old = web.cookies.get(Cookies.SESSION);
        WebClient.Reply page = web.get("/flags");
        WebClient.Reply out = web.post("/logout", "csrf", page.csrf());
        assertThat(out.status()).isEqualTo(303);
        assertThat(out.header("Location")).isEqualTo("/login");
        web.cookies.put(Cookies.SESSION, old); // replaying the old cookie does not help
        assertThat(web.get("/flags").status()).isEqualTo(303);
    }

    @Test
    void flagPageStoresTheSwitchAndShowsPendingRestartLikeTheApi() {
        WebClient web = signedIn(null);
        WebClient.Reply page = web.get("/flags");
        assertThat(page.body())
                .contains("Sandboxed per-agent test DB/Redis")
                .contains("next backend restart")
                .doesNotContain("id=\"pending-restart\"");
        WebClient.Reply saved =
                web.post("/flags/" + FlagStore.SANDBOX_DB_ENABLED, "csrf", page.csrf(), "enabled", "true");
        assertThat(saved.status()).isEqualTo(303);
        assertThat(store.storedFlag(FlagStore.SANDBOX_DB_ENABLED)).contains(true);
        String after = web.get("/flags").body();
        assertThat(after).contains("id=\"pending-restart\"").contains("takes effect on the next backend restart");
        Map<String, Object> api = flagApi(web);
        assertThat(api)
                .containsEntry("stored", true)
                .containsEntry("effective", false)
                .containsEntry("pending_restart", true);

        web.post("/flags/" + FlagStore.SANDBOX_DB_ENABLED, "csrf", page.csrf()); // unchecked box: off
        assertThat(store.storedFlag(FlagStore.SANDBOX_DB_ENABLED)).contains(false);
        assertThat(web.get("/flags").body()).doesNotContain("id=\"pending-restart\"");
        assertThat(flagApi(web)).containsEntry("pending_restart", false);
    }

    @Test
    void limitsSetOnTheSandboxCardAreWhatTheApiShowsAndOverTheMaximumIsRefusedNamingIt() {
        WebClient web = signedIn(true);
        WebClient.Reply list = web.get("/projects");
        web.post("/projects", "csrf", list.csrf(), "id", "big", "name", "Big");
        WebClient.Reply settings = web.get("/projects/big");
        assertThat(settings.body())
                .contains("name=\"limit.memory.postgres\"")
                .contains("placeholder=\"512m\"")
                .contains("holds pgbench scale 10");
        WebClient.Reply saved = web.post(
                "/projects/big",
                "csrf",
                settings.csrf(),
                "name",
                "Big",
                "service",
                "postgres",
                "limit.memory.postgres",
                "1g",
                "limit.data_size.postgres",
                "512m",
                "limit.cpus.postgres",
                "2");
        assertThat(saved.status()).isEqualTo(303);
        assertThat(web.json("GET", "/api/projects/big", ADMIN, null).body())
                .contains("\"sandbox_limits\":{\"postgres\":{\"memory\":\"1g\",\"data_size\":\"512m\",\"cpus\":2}}");
        assertThat(web.get("/projects/big").body()).contains("value=\"1g\"").contains("value=\"512m\"");

        WebClient.Reply page = web.get("/projects/big");
        WebClient.Reply refused = web.post(
                "/projects/big",
                "csrf",
                page.csrf(),
                "name",
                "Big",
                "service",
                "postgres",
                "limit.memory.postgres",
                "64g");
        assertThat(refused.status()).isEqualTo(400);
        assertThat(refused.body()).contains("over the operator's maximum 2g (ROBOCO_SANDBOX_MAX_MEMORY)");
        assertThat(store.findProject("big").orElseThrow().limitsFor("postgres").memoryBytes())
                .isEqualTo(1L << 30);
    }

    @Test
    void projectAddedAndSavedOnThePagesIsWhatTheApiShows() {
        WebClient web = signedIn(true);
        WebClient.Reply list = web.get("/projects");
        WebClient.Reply added = web.post("/projects", "csrf", list.csrf(), "id", "shop", "name", "Shop backend");
        assertThat(added.status()).isEqualTo(303);
        assertThat(added.header("Location")).isEqualTo("/projects/shop");
        WebClient.Reply settings = web.get("/projects/shop");
        assertThat(settings.body()).contains("id=\"sandbox-card\"").contains("Project 'shop' added");

        WebClient.Reply saved = web.post(
                "/projects/shop",
                "csrf",
                settings.csrf(),
                "name",
                "Shop backend",
                "service",
                "postgres",
                "service",
                "redis",
                "feature.postgres",
                "pg_trgm",
                "feature.redis",
                "search");
        assertThat(saved.status()).isEqualTo(303);
        assertThat(store.findProject("shop"))
                .contains(new Project(
                        "shop",
                        "Shop backend",
                        List.of("postgres", "redis"),
                        Map.of("postgres", List.of("pg_trgm"), "redis", List.of("search"))));
        assertThat(web.json("GET", "/api/projects/shop", ADMIN, null).body())
                .isEqualTo(
                        "{\"id\":\"shop\",\"name\":\"Shop backend\",\"sandbox_services\":[\"postgres\",\"redis\"],"
                                + "\"sandbox_extensions\":{\"postgres\":[\"pg_trgm\"],\"redis\":[\"search\"]},\"sandbox_versions\":{},\"sandbox_ttl_default\":null,\"sandbox_ttl_max\":null,\"sandbox_max_live\":null,\"sandbox_seed\":{},\"sandbox_limits\":{}}");
        String page = web.get("/projects/shop").body();
        assertThat(page).contains("next request_sandbox provisions postgres, redis");
        assertThat(checked(page, "svc-postgres")).isTrue();
        assertThat(checked(page, "feat-postgres-pg_trgm")).isTrue();
        assertThat(checked(page, "feat-redis-search")).isTrue();
        assertThat(checked(page, "svc-mongo")).isFalse();
        assertThat(checked(page, "feat-postgres-vector")).isFalse();
    }

    @Test
    void projectSavedThroughTheApiIsCheckedOnThePage() {
        WebClient web = signedIn(true);
        assertThat(web.json(
                                "PUT",
                                "/api/projects/shop",
                                ADMIN,
                                "{\"name\":\"Shop\",\"sandbox_services\":[\"redis\",\"mongo\"],\"sandbox_extensions\":{\"redis\":[\"json\"]}}")
                        .status())
                .isEqualTo(200);
        String page = web.get("/projects/shop").body();
        assertThat(checked(page, "svc-redis")).isTrue();
        assertThat(checked(page, "svc-mongo")).isTrue();
        assertThat(checked(page, "svc-postgres")).isFalse();
        assertThat(checked(page, "feat-redis-json")).isTrue();
        assertThat(web.get("/projects").body())
                .contains("href=\"/projects/shop\"")
                .contains("redis: json");
    }

    @Test
    void invalidCombinationsAreRefusedOnThePageWithTheApisMessageAndNothingSaved() {
        WebClient web = signedIn(true);
        Project before = new Project("shop", "Shop", List.of("redis"), Map.of());
        store.saveProject(before);
        String csrf = web.get("/projects/shop").csrf();

        WebClient.Reply orphan =
                web.post("/projects/shop", "csrf", csrf, "service", "redis", "feature.postgres", "pg_trgm");
        assertThat(orphan.status()).isEqualTo(400);
        assertThat(orphan.body())
                .contains("Not saved")
                .contains("not in sandbox_services")
                .contains("nothing saved");
        assertThat(checked(orphan.body(), "feat-postgres-pg_trgm"))
                .as("shows what was submitted")
                .isTrue();
        String api = web.json(
                        "PUT",
                        "/api/projects/shop",
                        ADMIN,
                        "{\"name\":\"Shop\",\"sandbox_services\":[\"redis\"],\"sandbox_extensions\":{\"postgres\":[\"pg_trgm\"]}}")
                .body();
        assertThat(api).contains("not in sandbox_services");

        WebClient.Reply forged =
                web.post("/projects/shop", "csrf", csrf, "service", "postgres", "feature.postgres", "plpython3u");
        assertThat(forged.status()).isEqualTo(400);
        assertThat(forged.body()).contains("allowed: citext, pg_trgm, postgis, uuid-ossp, vector");
        WebClient.Reply unknown = web.post("/projects/shop", "csrf", csrf, "service", "mysql");
        assertThat(unknown.status()).isEqualTo(400);
        assertThat(unknown.body()).contains("known: mongo, postgres, redis");
        assertThat(store.findProject("shop")).contains(before);
    }

    @Test
    void sandboxCardIsGeneratedFromTheRegistrySoAFourthEngineAppears() {
        List<Engine> engines = new ArrayList<>(StubEngine.registry().all());
        engines.add(new StubEngine("mysql", "ROBOCO_TEST_MYSQL_", Set.of("fulltext"), "available_plugins"));
        WebClient web = start(true, EngineRegistry.of(engines));
        web.signIn(ADMIN);
        store.saveProject(new Project("shop", "Shop", List.of("mysql"), Map.of("mysql", List.of("fulltext"))));
        String page = web.get("/projects/shop").body();
        assertThat(checked(page, "svc-mysql")).isTrue();
        assertThat(checked(page, "feat-mysql-fulltext")).isTrue();
        assertThat(page).contains("Plugins");
    }

    @Test
    void theCardsVersionChoicesNameTheImageEachRunsAndTheDefaultsMajorAndTheSeedIsShown() {
        WebClient web = start(true, EngineRegistry.defaults());
        web.signIn(ADMIN);
        store.saveProject(new Project(
                "shop",
                "Shop",
                List.of("postgres"),
                Map.of(),
                Map.of("postgres", "17"),
                Map.of("postgres", new Seed.Sql("create table t (id int);"))));
        String page = web.get("/projects/shop").body();
        assertThat(page)
                .contains("server default image (PostgreSQL 16, postgres:16-alpine)")
                .contains("PostgreSQL 17 (postgres:17-alpine)")
                .contains("PostgreSQL 15 (postgres:15-alpine)");
        assertThat(page).containsPattern("<option value=\"17\" selected[^>]*>PostgreSQL 17");
        assertThat(page).contains("id=\"seed-postgres\"").contains("sql (24 bytes)");
    }

    @Test
    void theProjectCardListsTheProjectsOwnTemplatesOnly() throws Exception {
        WebClient web = start(true, EngineRegistry.defaults());
        web.signIn(ADMIN);
        DirectoryTemplateStore templates = new DirectoryTemplateStore(dir.resolve("templates"));
        for (String[] t : new String[][] {{"shop-v1", "shop"}, {"base", "shop"}, {"unrelated", "other"}}) {
            templates.save(
                    new TemplateInfo(
                            t[0],
                            t[1],
                            "sbx_1",
                            "15",
                            "15.14",
                            0,
                            Instant.parse("2026-12-01T12:00:00Z"),
                            "0123456789abcdef0123",
                            List.of()),
                    out -> out.write(new byte[42]),
                    false);
        }
        store.saveProject(new Project(
                "shop",
                "Shop",
                List.of("postgres"),
                Map.of(),
                Map.of(),
                Map.of("postgres", new Seed.Template("base"))));
        store.saveProject(new Project("empty", "Empty", List.of("postgres"), Map.of()));
        String page = web.get("/projects/shop").body();
        assertThat(page)
                .contains(
                        "id=\"template-shop-v1\"", "id=\"template-base\"", "PostgreSQL 15", "42 bytes", "0123456789ab")
                .doesNotContain("template-unrelated");
        assertThat(page).contains("id=\"seed-postgres\"").contains("template base");
        assertThat(web.get("/projects/empty").body()).contains("id=\"templates-none\"");
    }

    @Test
    void liveSandboxIsListedWithoutCredentialsAndReleasedFromThePage() throws Exception {
        WebClient web = signedIn(true);
        store.saveProject(
                new Project("shop", "Shop", List.of("postgres", "redis"), Map.of("postgres", List.of("pg_trgm"))));
        String answer = grantSandbox(web, "dev-1");
        WebClient.Reply page = web.get("/sandboxes");
        assertThat(page.body())
                .contains("data-agent=\"dev-1\"")
                .contains("postgres")
                .contains("redis")
                .contains("pg_trgm")
                .contains("unchecked");
        for (String secret : secrets(answer)) {
            assertThat(page.body()).doesNotContain(secret);
        }

        WebClient.Reply verified = web.post("/sandboxes/dev-1/verify", "csrf", page.csrf());
        assertThat(verified.status()).isEqualTo(303);
        assertThat(web.get("/sandboxes").body()).contains("every service answered");

        WebClient.Reply released = web.post("/sandboxes/dev-1/release", "csrf", page.csrf());
        assertThat(released.status()).isEqualTo(303);
        String after = web.get("/sandboxes").body();
        assertThat(after).contains("Released dev-1").contains("No live sandboxes");
        assertThat(runtime.runningCount()).isZero();
        assertThat(store.recent("dev-1", "released", 10))
                .singleElement()
                .satisfies(r -> assertThat(r.verb()).isEqualTo(Dashboard.RELEASE_VERB));
    }

    @Test
    void namedSandboxesShowOwnerNameLabelsExpiryAndCapacityAndAreExtendedAndCleanedUpFromThePage() throws Exception {
        MutableClock clock = MutableClock.atNow();
        ServerConfig config =
                ServerConfig.defaults(dir).withPort(0).withFlag(true).withTokens(API, ADMIN);
        server = SandboxServer.start(config, runtime, StubEngine.registry(), store, clock);
        WebClient web = new WebClient(server.port());
        web.signIn(ADMIN);
        store.saveProject(new Project("shop", "Shop", List.of("postgres"), Map.of()));
        WebClient.Reply made = web.json(
                "POST",
                "/api/sandboxes",
                ADMIN,
                "{\"owner\":\"job:ci-7\",\"project\":\"shop\",\"name\":\"before\",\"ttl\":\"10m\",\"labels\":{\"task\":\"T-9\"}}");
        assertThat(made.status()).as(made.body()).isEqualTo(200);
        String id = made.body().replaceAll(".*\"id\":\"(sbx_[0-9a-f]+)\".*", "$1");
        WebClient.Reply page = web.get("/sandboxes");
        assertThat(page.body())
                .contains("data-id=\"" + id + "\"")
                .contains("job:ci-7")
                .contains("before")
                .contains("task=T-9")
                .contains("in 10m")
                .contains("1 of 32 sandbox containers live")
                .contains("Nothing has expired");
        assertThat(page.body()).doesNotContain("PASSWORD");

        assertThat(web.post("/sandboxes/id/" + id + "/extend", "csrf", page.csrf(), "ttl", "1h")
                        .status())
                .isEqualTo(303);
        assertThat(web.get("/sandboxes").body()).contains("Extended " + id).contains("in 1h");
        assertThat(web.get("/sandboxes?owner=nobody").body()).contains("No live sandboxes match");
        assertThat(web.get("/sandboxes?label=task=T-9").body()).contains("data-id=\"" + id + "\"");

        clock.advance(Duration.ofHours(2));
        String expired = web.get("/sandboxes").body();
        assertThat(expired)
                .doesNotContain("data-id=\"" + id + "\"")
                .contains("Cleanup preview")
                .contains("<code>" + id + "</code>");
        assertThat(runtime.runningCount()).isEqualTo(1);
        assertThat(web.post("/sandboxes/cleanup", "csrf", page.csrf()).status()).isEqualTo(303);
        assertThat(web.get("/sandboxes").body()).contains("Cleaned up 1 expired sandbox(es): " + id);
        assertThat(runtime.runningCount()).isZero();
    }

    @Test
    void theProjectCardShowsAndSavesTheTtlsAndTheLiveLimit() throws Exception {
        WebClient web = signedIn(true);
        store.saveProject(new Project("shop", "Shop", List.of("postgres"), Map.of()));
        WebClient.Reply page = web.get("/projects/shop");
        assertThat(page.body())
                .contains("TTL default")
                .contains("TTL max")
                .contains("Max live sandboxes")
                .contains("placeholder=\"4h\"");
        WebClient.Reply saved = web.post(
                "/projects/shop",
                "csrf",
                page.csrf(),
                "service",
                "postgres",
                "sandbox_ttl_default",
                "30m",
                "sandbox_ttl_max",
                "2h",
                "sandbox_max_live",
                "5");
        assertThat(saved.status()).isEqualTo(303);
        Project p = store.findProject("shop").orElseThrow();
        assertThat(p.ttlDefault()).isEqualTo(Duration.ofMinutes(30));
        assertThat(p.ttlMax()).isEqualTo(Duration.ofHours(2));
        assertThat(p.maxLive()).isEqualTo(5);
        assertThat(web.get("/projects/shop").body())
                .contains("value=\"30m\"")
                .contains("value=\"2h\"")
                .contains("value=\"5\"");
        WebClient.Reply bad = web.post(
                "/projects/shop",
                "csrf",
                page.csrf(),
                "service",
                "postgres",
                "sandbox_ttl_default",
                "3h",
                "sandbox_ttl_max",
                "2h");
        assertThat(bad.status()).isEqualTo(400);
        assertThat(bad.body()).contains("must not exceed sandbox_ttl_max");
    }

    @Test
    void theAuditPagePagesByCursorAndShowsEveryRecordOnce() throws Exception {
        WebClient web = signedIn(true);
        Instant t0 = Instant.parse("2026-01-01T00:00:00Z");
        for (int i = 0; i < 120; i++) {
            store.append(new AuditRecord(
                    t0.plusSeconds(i / 3),
                    "pager-1",
                    "shop",
                    "request_sandbox",
                    "granted",
                    "r" + i + "x",
                    List.of(),
                    i));
        }
        Set<String> seen = new HashSet<>();
        String path = "/audit?agent=pager-1&limit=50";
        int pages = 0;
        while (path != null && pages < 10) {
            String body = web.get(path).body();
            Matcher m = Pattern.compile(">r([0-9]+)x<").matcher(body);
            while (m.find()) {
                assertThat(seen.add(m.group(1)))
                        .as("record %s shown twice", m.group(1))
                        .isTrue();
            }
            Matcher older = Pattern.compile("href=\"(/audit\\?[^\"]*cursor=[^\"]*)\" class=\"button\" id=\"older\"")
                    .matcher(body);
            path = older.find() ? older.group(1).replace("&amp;", "&") : null;
            pages++;
        }
        assertThat(pages).isEqualTo(3);
        assertThat(seen).hasSize(120);
        assertThat(web.get("/audit?cursor=garbage").status()).isEqualTo(400);
    }

    @Test
    void auditPageListsNewestFirstAndFiltersByAgentAndDecision() throws Exception {
        WebClient web = signedIn(true);
        store.saveProject(new Project("shop", "Shop", List.of("postgres"), Map.of()));
        grantSandbox(web, "dev-1");
        web.json("POST", "/api/agents/qa-9/verbs/request_sandbox", API, "{}"); // refused: no task
        String all = web.get("/audit").body();
        assertThat(all.indexOf(">qa-9</td>")).isPositive().isLessThan(all.indexOf(">dev-1</td>"));
        String refused = web.get("/audit?decision=refused").body();
        assertThat(refused).contains("qa-9").doesNotContain(">dev-1<");
        String dev = web.get("/audit?agent=dev-1").body();
        assertThat(dev).contains(">dev-1<").contains("granted").doesNotContain(">qa-9<");
        assertThat(web.get("/audit?decision=%3Cscript%3E").status()).isEqualTo(400);
    }

    @Test
    void theSandboxesPageChartsTheLastHourFromTheServersOwnMetrics() {
        WebClient web = signedIn(true);
        String before = web.get("/sandboxes").body();
        assertThat(before)
                .contains("id=\"activity\" data-requests=\"0\" data-live=\"0\"")
                .contains("no granted requests in the last hour");
        store.saveProject(new Project("shop", "Shop", List.of("postgres"), Map.of()));
        grantSandbox(web, "dev-1");
        grantSandbox(web, "dev-2");
        web.json("POST", "/api/agents/dev-1/verbs/request_sandbox", API, "{}"); // a cache hit, granted too

        String page = web.get("/sandboxes").body();
        assertThat(page)
                .contains("id=\"activity\" data-requests=\"3\" data-live=\"2\"")
                .contains("3 granted requests, mean ")
                .contains("2 now, peak 2")
                .contains("<svg viewBox=\"0 0 560 130\"")
                // the latency's dots, and the live count at its peak (the top, y 12.0) in the current minute (x 550.0),
                // whether or not a minute has turned since the server started
                .containsPattern(
                        "id=\"activity-latency\"[\\s\\S]*<circle class=\"chart-dot\" cx=\"[0-9.]+\" cy=\"[0-9.]+\"")
                .containsPattern(
                        "id=\"activity-live\"[\\s\\S]*<path class=\"chart-series\" d=\"M[^\"]*12\\.0 H550\\.0\"")
                .doesNotContain("<script");
    }

    @Test
    void userTextIsEscaped() {
        WebClient web = signedIn(null);
        store.saveProject(new Project("shop", "<script>alert(1)</script>", List.of(), Map.of()));
        String page = web.get("/projects").body();
        assertThat(page).doesNotContain("<script>").contains("&lt;script&gt;");
    }

    private static String grantSandbox(WebClient web, String slug) {
        web.json("POST", "/api/agents/" + slug + "/spawn", API, "{\"role\":\"developer\",\"project\":\"shop\"}");
        web.json("POST", "/api/agents/" + slug + "/verbs/give_me_work", API, "{\"project\":\"shop\",\"task\":\"T-1\"}");
        WebClient.Reply r = web.json("POST", "/api/agents/" + slug + "/verbs/request_sandbox", API, "{}");
        assertThat(r.body()).contains("\"ok\":true");
        return r.body();
    }

    /** Every *_PASSWORD and *_URL value in an envelope. */
    private static List<String> secrets(String envelope) {
        List<String> out = new ArrayList<>();
        Matcher m = Pattern.compile("_(PASSWORD|URL)\":\"([^\"]+)\"").matcher(envelope);
        while (m.find()) {
            out.add(m.group(2));
        }
        assertThat(out).isNotEmpty();
        return out;
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> flagApi(WebClient web) {
        try {
            Map<String, Object> all = new ObjectMapper()
                    .readValue(web.json("GET", "/api/flags", ADMIN, null).body(), Map.class);
            return (Map<String, Object>) all.get(FlagStore.SANDBOX_DB_ENABLED);
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }

    /** Whether the input with this id carries the {@code checked} attribute. */
    static boolean checked(String page, String id) {
        int at = page.indexOf("id=\"" + id + "\"");
        assertThat(at).as("input " + id).isPositive();
        int end = page.indexOf('>', at);
        int start = page.lastIndexOf('<', at);
        return page.substring(start, end).contains(" checked");
    }

    private static String[] with(List<String> prefix, String... fields) {
        List<String> all = new ArrayList<>(prefix);
        all.addAll(List.of(fields));
        return all.toArray(new String[0]);
    }
}
