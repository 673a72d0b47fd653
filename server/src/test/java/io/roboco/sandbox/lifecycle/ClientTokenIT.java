package io.roboco.sandbox.lifecycle;

import static org.assertj.core.api.Assertions.assertThat;

import io.roboco.sandbox.it.OperatorCli;
import io.roboco.sandbox.store.JdbcSettingsStore;
import io.roboco.sandbox.testkit.ApiClient;
import java.nio.file.Path;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Client tokens against the real server, Docker and the embedded store: the operator mints one per CI job (HTTP and
 * the CLI); it creates, lists, shows, extends and deletes only its owner's sandboxes, under the owner's quota, and
 * gets 403 on flags, projects, audit, everything else and another owner's sandbox. Revoked, it gets 403 everywhere.
 */
@Timeout(value = 4, unit = TimeUnit.MINUTES)
class ClientTokenIT {
    @TempDir
    Path dir;

    @Test
    void aClientTokenReachesOnlyItsOwnersSandboxesUnderItsQuota() throws Exception {
        try (LifecycleServer s = new LifecycleServer(
                dir, Map.of("ROBOCO_SANDBOX_MAX_PER_OWNER", "2"), JdbcSettingsStore.embedded(dir), Clock.systemUTC())) {
            s.project("ci", "[\"redis\"]", null);
            ApiClient api = s.api;

            ApiClient.Reply minted = api.admin("POST", "/api/clients/job:ci-42/token", null);
            assertThat(minted.status()).as(minted.toString()).isEqualTo(200);
            String token = (String) minted.json().get("token");
            assertThat(token).startsWith("rbxc_");
            assertThat(minted.json()).containsEntry("owner", "job:ci-42");
            assertThat(s.store.clientTokens())
                    .singleElement()
                    .satisfies(t -> assertThat(t.digest())
                            .doesNotContain(token.substring(5))
                            .hasSize(64));
            OperatorCli.Run cli = OperatorCli.run(OperatorCli.against(s.server.port()), "client-token", "job:other");
            assertThat(cli.exit()).as(cli.out()).isZero();
            String other = cli.out().strip();
            assertThat(other).startsWith("rbxc_");
            assertThat(api.admin("POST", "/api/clients/dev-1/token", null).status())
                    .as("an agent slug is no client owner")
                    .isEqualTo(400);

            // Allowed: create (owner implied or its own), list, show, extend, delete.
            ApiClient.Reply first = api.send("POST", "/api/sandboxes", token, "{\"project\":\"ci\",\"name\":\"a\"}");
            assertThat(first.ok()).as(first.toString()).isTrue();
            Map<?, ?> sandbox = (Map<?, ?>) first.json().get("sandbox");
            String id = (String) sandbox.get("id");
            assertThat(sandbox.get("owner")).isEqualTo("job:ci-42");
            ApiClient.Reply second = api.send(
                    "POST", "/api/sandboxes", token, "{\"owner\":\"job:ci-42\",\"project\":\"ci\",\"name\":\"b\"}");
            assertThat(second.ok()).as(second.toString()).isTrue();
            ApiClient.Reply third = api.send("POST", "/api/sandboxes", token, "{\"project\":\"ci\",\"name\":\"c\"}");
            assertThat(third.status()).isEqualTo(200);
            assertThat(third.json())
                    .as("the owner's quota applies to its client")
                    .containsEntry("ok", false)
                    .containsEntry("error", "refused");
            assertThat((String) third.json().get("reason"))
                    .contains("owner 'job:ci-42'")
                    .contains("quota of 2");
            assertThat(s.running())
                    .as("one redis container per created sandbox")
                    .hasSize(2);

            ApiClient.Reply list = api.send("GET", "/api/sandboxes", token, null);
            assertThat(list.status()).isEqualTo(200);
            assertThat((List<?>) list.json().get("sandboxes")).hasSize(2);
            assertThat(api.send("GET", "/api/sandboxes/" + id, token, null).status())
                    .isEqualTo(200);
            ApiClient.Reply extended = api.send("POST", "/api/sandboxes/" + id + "/extend", token, "{\"ttl\":\"30m\"}");
            assertThat(extended.ok()).as(extended.toString()).isTrue();

            // Another owner's sandbox: 403 on show, extend, delete; not in the list; no create in its name.
            ApiClient.Reply foreign =
                    api.send("POST", "/api/sandboxes", other, "{\"project\":\"ci\",\"name\":\"theirs\"}");
            assertThat(foreign.ok()).as(foreign.toString()).isTrue();
            String theirs = (String) ((Map<?, ?>) foreign.json().get("sandbox")).get("id");
            assertForbidden(api.send("GET", "/api/sandboxes/" + theirs, token, null));
            assertForbidden(api.send("POST", "/api/sandboxes/" + theirs + "/extend", token, "{\"ttl\":\"30m\"}"));
            assertForbidden(api.send("DELETE", "/api/sandboxes/" + theirs, token, null));
            assertForbidden(api.send("GET", "/api/sandboxes?owner=job:other", token, null));
            assertForbidden(api.send(
                    "POST", "/api/sandboxes", token, "{\"owner\":\"job:other\",\"project\":\"ci\",\"name\":\"x\"}"));
            List<Object> owners = ((List<?>) api.send("GET", "/api/sandboxes", token, null)
                            .json()
                            .get("sandboxes"))
                    .stream().map(o -> (Object) ((Map<?, ?>) o).get("owner")).toList();
            assertThat(owners).containsOnly("job:ci-42");

            // Everything else: 403.
            assertForbidden(api.send("GET", "/api/flags", token, null));
            assertForbidden(api.send("PUT", "/api/flags/ROBOCO_SANDBOX_DB_ENABLED", token, "{\"enabled\":false}"));
            assertForbidden(api.send("GET", "/api/projects", token, null));
            assertForbidden(api.send("PUT", "/api/projects/ci", token, "{\"sandbox_services\":[\"postgres\"]}"));
            assertForbidden(api.send("GET", "/api/audit", token, null));
            assertForbidden(api.send("GET", "/api/doctor", token, null));
            assertForbidden(api.send("GET", "/api/templates", token, null));
            assertForbidden(api.send("POST", "/api/sandboxes/cleanup", token, "{\"dry_run\":false}"));
            assertForbidden(api.send("POST", "/api/sandboxes/release", token, "{\"agent\":\"dev-1\"}"));
            assertForbidden(api.send("POST", "/api/sandboxes/" + id + "/checkpoints", token, "{\"name\":\"c1\"}"));
            assertForbidden(api.send("POST", "/api/clients/job:ci-42/token", token, null));
            assertForbidden(api.send("POST", "/api/agents/dev-1/spawn", token, "{\"role\":\"developer\"}"));
            assertThat(api.send("POST", "/mcp", token, "{}").status())
                    .as("a client token is no MCP identity")
                    .isEqualTo(401);

            ApiClient.Reply deleted = api.send("DELETE", "/api/sandboxes/" + id, token, null);
            assertThat(deleted.json()).containsEntry("deleted", true);

            // Revoked: 403 on its own routes too; the admin still sees everything.
            ApiClient.Reply revoked = api.admin("DELETE", "/api/clients/job:ci-42/token", null);
            assertThat(revoked.json()).containsEntry("revoked", true);
            assertForbidden(api.send("GET", "/api/sandboxes", token, null));
            assertThat((List<?>) api.admin("GET", "/api/sandboxes", null).json().get("sandboxes"))
                    .hasSize(2);
            assertThat(api.admin("DELETE", "/api/clients/job:ci-42/token", null).json())
                    .containsEntry("revoked", false);
        }
    }

    private static void assertForbidden(ApiClient.Reply reply) {
        assertThat(reply.status()).as(reply.toString()).isEqualTo(403);
        assertThat(reply.json()).containsEntry("error", "forbidden");
    }
}
