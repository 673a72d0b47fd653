package io.roboco.sandbox.server;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

class ApiAuthTest {
    @TempDir
    Path dir;
    private TestServer t;

    @BeforeEach
    void start() {
        t = new TestServer(dir, true);
    }

    @AfterEach
    void stop() {
        t.close();
    }

    @Test
    void healthzNeedsNoToken() {
        TestServer.Reply r = t.send("GET", "/healthz", null, null);
        assertThat(r.status()).isEqualTo(200);
        assertThat(r.json()).containsEntry("status", "ok").containsEntry("state", "running");
    }

    @Test
    void missingTokenIs401OnBothKindsOfRoute() {
        assertThat(t.send("GET", "/api/projects", null, null).status()).isEqualTo(401);
        TestServer.Reply r = t.send("POST", "/api/agents/dev-1/spawn", null, "{\"role\":\"developer\"}");
        assertThat(r.status()).isEqualTo(401);
        assertThat(r.json()).containsEntry("error", "unauthorized");
    }

    @Test
    void wrongTokenIs403() {
        assertThat(t.send("GET", "/api/flags", "wrong-token-wrong-token", null).status()).isEqualTo(403);
        assertThat(t.send("POST", "/api/agents/dev-1/verbs/i_am_idle", "nope", null).json()).containsEntry("error", "forbidden");
    }

    @Test
    void orchestratorTokenDoesNotGrantAdminRoutesAndViceVersa() {
        assertThat(t.send("GET", "/api/sandboxes", TestServer.API, null).status()).isEqualTo(403);
        assertThat(t.send("GET", "/api/audit", TestServer.API, null).status()).isEqualTo(403);
        assertThat(t.send("PUT", "/api/flags/ROBOCO_SANDBOX_DB_ENABLED", TestServer.API, "{\"enabled\":false}").status()).isEqualTo(403);
        assertThat(t.send("POST", "/api/agents/dev-1/spawn", TestServer.ADMIN, "{\"role\":\"developer\"}").status()).isEqualTo(403);
    }

    @Test
    void nonBearerSchemeIs401() {
        TestServer.Reply r = t.send("GET", "/api/projects", null, null);
        assertThat(r.status()).isEqualTo(401);
    }

    @Test
    void unknownRouteIsJson404() {
        TestServer.Reply r = t.admin("GET", "/api/nothing-here", null);
        assertThat(r.status()).isEqualTo(404);
        assertThat(r.json()).containsEntry("error", "not_found");
    }
}
