package io.roboco.sandbox.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.roboco.sandbox.testkit.ApiClient;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

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
        ApiClient.Reply r = t.api.send("GET", "/healthz", null, null);
        assertThat(r.status()).isEqualTo(200);
        assertThat(r.json()).containsEntry("status", "ok").containsEntry("state", "running");
    }

    @Test
    void missingTokenIs401OnBothKindsOfRoute() {
        assertThat(t.api.send("GET", "/api/projects", null, null).status()).isEqualTo(401);
        ApiClient.Reply r = t.api.send("POST", "/api/agents/dev-1/spawn", null, "{\"role\":\"developer\"}");
        assertThat(r.status()).isEqualTo(401);
        assertThat(r.json()).containsEntry("error", "unauthorized");
    }

    @Test
    void wrongTokenIs403() {
        assertThat(t.api.send("GET", "/api/flags", "wrong-token-wrong-token", null)
                        .status())
                .isEqualTo(403);
        assertThat(t.api.send("POST", "/api/agents/dev-1/verbs/i_am_idle", "nope", null)
                        .json())
                .containsEntry("error", "forbidden");
    }

    @Test
    void orchestratorTokenDoesNotGrantAdminRoutesAndViceVersa() {
        assertThat(t.api.send("GET", "/api/sandboxes", ApiClient.API_TOKEN, null)
                        .status())
                .isEqualTo(403);
        assertThat(t.api.send("GET", "/api/audit", ApiClient.API_TOKEN, null).status())
                .isEqualTo(403);
        assertThat(t.api.send("PUT", "/api/flags/ROBOCO_SANDBOX_DB_ENABLED", ApiClient.API_TOKEN, "{\"enabled\":false}")
                        .status())
                .isEqualTo(403);
        assertThat(t.api.send("POST", "/api/agents/dev-1/spawn", ApiClient.ADMIN_TOKEN, "{\"role\":\"developer\"}")
                        .status())
                .isEqualTo(403);
    }

    @Test
    void nonBearerSchemeIs401() {
        ApiClient.Reply r = t.api.send("GET", "/api/projects", null, null);
        assertThat(r.status()).isEqualTo(401);
    }

    @Test
    void unknownRouteIsJson404() {
        ApiClient.Reply r = t.api.admin("GET", "/api/nothing-here", null);
        assertThat(r.status()).isEqualTo(404);
        assertThat(r.json()).containsEntry("error", "not_found");
    }
}
