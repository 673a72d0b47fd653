package io.roboco.sandbox.pages;

import static org.assertj.core.api.Assertions.assertThat;

import io.roboco.sandbox.it.LogCapture;
import io.roboco.sandbox.server.RunningServer;
import io.roboco.sandbox.server.SandboxServer;
import io.roboco.sandbox.server.config.ServerConfig;
import io.roboco.sandbox.settings.ClientToken;
import io.roboco.sandbox.testkit.ApiClient;
import io.roboco.sandbox.testkit.FakeContainerRuntime;
import io.roboco.sandbox.testkit.FakeSettingsStore;
import io.roboco.sandbox.testkit.StubEngine;
import java.nio.file.Path;
import java.time.Clock;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The Clients page over plain HTTP against the in-process server: an operator mints a CI job's client token (shown
 * once, never again, in no log or audit record), the token does what the API's does, revoking stops it; bad owners are
 * refused with the API's words; posts without the session's CSRF token change nothing.
 */
class ClientTokenPagesTest {
    static final String API = ApiClient.API_TOKEN;
    static final String ADMIN = ApiClient.ADMIN_TOKEN;
    static final Pattern TOKEN = Pattern.compile("id=\"minted-token\"[^>]*value=\"(rbxc_[A-Za-z0-9_-]+)\"");

    @TempDir
    Path dir;

    final FakeSettingsStore store = new FakeSettingsStore();
    RunningServer server;

    @AfterEach
    void stop() {
        if (server != null) {
            server.close();
        }
    }

    WebClient signedIn() {
        ServerConfig config =
                ServerConfig.defaults(dir).withPort(0).withFlag(true).withTokens(API, ADMIN);
        server = SandboxServer.start(
                config, new FakeContainerRuntime(), StubEngine.registry(), store, Clock.systemUTC());
        WebClient web = new WebClient(server.port());
        web.signIn(ADMIN);
        return web;
    }

    @Test
    void aTokenMintedOnThePageIsShownOnceReachesOnlyItsOwnersSandboxesAndRevokingStopsIt() {
        WebClient web = signedIn();
        String token;
        try (LogCapture logs = new LogCapture()) {
            WebClient.Reply page = web.get("/clients");
            assertThat(page.body()).contains("No client tokens yet.");
            WebClient.Reply minted = web.post("/clients/token", "csrf", page.csrf(), "owner", "job:nightly-ci");
            assertThat(minted.status()).isEqualTo(200);
            assertThat(minted.header("Cache-Control")).isEqualTo("no-store");
            Matcher m = TOKEN.matcher(minted.body());
            assertThat(m.find()).as("the minted token in its field").isTrue();
            token = m.group(1);
            assertThat(minted.body())
                    .contains("New client token for <code>job:nightly-ci</code>")
                    .contains("Copy it now")
                    .contains("shown only this")
                    .containsOnlyOnce(token);

            // What the API's token does: its owner's sandboxes only, 403 elsewhere.
            assertThat(web.json("GET", "/api/sandboxes", token, null).status()).isEqualTo(200);
            assertThat(web.json("GET", "/api/flags", token, null).status()).isEqualTo(403);
            assertThat(web.json("GET", "/api/audit", token, null).status()).isEqualTo(403);

            // Never again: not on a reload, not in the audit, not in the store, not in a log line or on the console.
            String again = web.get("/clients").body();
            assertThat(again).doesNotContain(token).contains("data-owner=\"job:nightly-ci\"");
            assertThat(web.json("GET", "/api/audit", ADMIN, null).body()).doesNotContain(token);
            assertThat(store.clientTokens()).singleElement().satisfies(t -> {
                assertThat(t.owner()).isEqualTo("job:nightly-ci");
                assertThat(t.digest()).doesNotContain(token).hasSize(64);
            });
            assertThat(logs.logged()).doesNotContain(token);
            assertThat(logs.printed()).doesNotContain(token);

            WebClient.Reply revoked =
                    web.post("/clients/token/revoke", "csrf", again(web).csrf(), "owner", "job:nightly-ci");
            assertThat(revoked.status()).isEqualTo(303);
            assertThat(revoked.header("Location")).isEqualTo("/clients");
            assertThat(web.get("/clients").body())
                    .contains("Revoked the client token of job:nightly-ci: it stops working now.")
                    .contains("No client tokens yet.");
            assertThat(web.json("GET", "/api/sandboxes", token, null).status()).isIn(401, 403);
            assertThat(store.clientTokens()).isEmpty();
            assertThat(logs.logged()).doesNotContain(token);
        }
    }

    @Test
    void mintingAgainReplacesTheOwnersToken() {
        WebClient web = signedIn();
        String first = mint(web, "job:ci-42");
        String second = mint(web, "job:ci-42");
        assertThat(second).isNotEqualTo(first);
        assertThat(web.json("GET", "/api/sandboxes", first, null).status()).isIn(401, 403);
        assertThat(web.json("GET", "/api/sandboxes", second, null).status()).isEqualTo(200);
        assertThat(store.clientTokens()).extracting(ClientToken::owner).containsExactly("job:ci-42");
    }

    @Test
    void aBadOwnerIsRefusedInTheApisWordsAndNothingIsMinted() {
        WebClient web = signedIn();
        String csrf = web.get("/clients").csrf();

        WebClient.Reply agent = web.post("/clients/token", "csrf", csrf, "owner", "dev-1");
        assertThat(agent.status()).isEqualTo(400);
        assertThat(agent.body())
                .contains("No token minted: a client token is for an operator-side owner")
                .contains("an agent gets an MCP token")
                .contains("value=\"dev-1\"")
                .doesNotContain("id=\"minted-token\"");
        // The same words as the API's refusal of the same owner.
        assertThat(web.json("POST", "/api/clients/dev-1/token", ADMIN, null).body())
                .contains("a client token is for an operator-side owner");

        for (String bad : new String[] {"", "job:", "job:Bad Name!", "<script>alert(1)</script>"}) {
            WebClient.Reply r = web.post("/clients/token", "csrf", csrf, "owner", bad);
            assertThat(r.status()).as("owner '%s'", bad).isEqualTo(400);
            assertThat(r.body())
                    .as("owner '%s'", bad)
                    .contains("No token minted: ")
                    .doesNotContain("<script>alert")
                    .doesNotContain("Exception");
        }
        WebClient.Reply revokeBad = web.post("/clients/token/revoke", "csrf", csrf, "owner", "dev-1");
        assertThat(revokeBad.status()).isEqualTo(303);
        assertThat(web.get("/clients").body())
                .contains("Nothing revoked: a client token is for an operator-side owner");
        assertThat(store.clientTokens()).isEmpty();
    }

    @Test
    void postsWithoutTheSessionsCsrfTokenOrWithoutASessionChangeNothing() {
        WebClient web = signedIn();
        String token = mint(web, "job:keep");
        for (String csrf : new String[] {null, "", "forged-token"}) {
            WebClient.Reply mint = csrf == null
                    ? web.post("/clients/token", "owner", "job:evil")
                    : web.post("/clients/token", "csrf", csrf, "owner", "job:evil");
            WebClient.Reply revoke = csrf == null
                    ? web.post("/clients/token/revoke", "owner", "job:keep")
                    : web.post("/clients/token/revoke", "csrf", csrf, "owner", "job:keep");
            assertThat(mint.status()).isEqualTo(403);
            assertThat(revoke.status()).isEqualTo(403);
            assertThat(mint.body()).contains("nothing was changed").doesNotContain("rbxc_");
        }
        WebClient stranger = new WebClient(server.port());
        assertThat(stranger.post("/clients/token", "owner", "job:evil").status())
                .isEqualTo(401);
        assertThat(stranger.post("/clients/token/revoke", "owner", "job:keep").status())
                .isEqualTo(401);
        assertThat(stranger.get("/clients").status()).isEqualTo(303);
        assertThat(store.clientTokens()).extracting(ClientToken::owner).containsExactly("job:keep");
        assertThat(web.json("GET", "/api/sandboxes", token, null).status()).isEqualTo(200);
    }

    private static WebClient.Reply again(WebClient web) {
        return web.get("/clients");
    }

    private static String mint(WebClient web, String owner) {
        WebClient.Reply r =
                web.post("/clients/token", "csrf", web.get("/clients").csrf(), "owner", owner);
        assertThat(r.status()).as(r.body()).isEqualTo(200);
        Matcher m = TOKEN.matcher(r.body());
        assertThat(m.find()).isTrue();
        return m.group(1);
    }
}
