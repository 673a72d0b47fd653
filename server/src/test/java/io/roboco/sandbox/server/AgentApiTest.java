package io.roboco.sandbox.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.roboco.sandbox.settings.Project;
import io.roboco.sandbox.testkit.ApiClient;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

@SuppressWarnings("unchecked")
class AgentApiTest {
    @TempDir
    Path dir;

    private TestServer t;

    @AfterEach
    void stop() {
        if (t != null) {
            t.close();
        }
    }

    @Test
    void spawnAnswersVerbsMarkerAndOneBriefingLine() {
        t = new TestServer(dir, true);
        t.api.admin("PUT", "/api/projects/shop", "{\"sandbox_services\":[\"postgres\",\"redis\"]}");
        ApiClient.Reply r =
                t.api.orchestrator("POST", "/api/agents/dev-1/spawn", "{\"role\":\"developer\",\"project\":\"shop\"}");
        assertThat(r.status()).isEqualTo(200);
        assertThat(r.json()).containsEntry("env", Map.of("ROBOCO_SANDBOX_SERVICES_AVAILABLE", "postgres,redis"));
        assertThat((List<String>) r.json().get("briefing"))
                .singleElement()
                .asString()
                .contains("request_sandbox()");
        assertThat((List<String>) r.json().get("verbs")).contains("request_sandbox", "release_sandbox");
        ApiClient.Reply reviewer =
                t.api.orchestrator("POST", "/api/agents/rev-1/spawn", "{\"role\":\"reviewer\",\"project\":\"shop\"}");
        assertThat(reviewer.json()).containsEntry("env", Map.of()).containsEntry("briefing", List.of());
    }

    @Test
    void spawnRejectsMalformedInput() {
        t = new TestServer(dir, true);
        assertThat(t.api.orchestrator("POST", "/api/agents/dev-1/spawn", "{\"project\":\"shop\"}")
                        .status())
                .isEqualTo(400);
        assertThat(t.api.orchestrator("POST", "/api/agents/dev-1/spawn", "{\"role\":\"wizard\"}")
                        .status())
                .isEqualTo(400);
        assertThat(t.api.orchestrator("POST", "/api/agents/Dev_1!/spawn", "{\"role\":\"developer\"}")
                        .status())
                .isEqualTo(400);
        assertThat(t.api.orchestrator("POST", "/api/agents/dev-1/spawn", "{\"role\":\"developer\",\"extra\":1}")
                        .status())
                .isEqualTo(400);
    }

    @Test
    void requestSandboxAnswersOkEnvelopeWithCredentialsForTheAskedSubset() {
        t = new TestServer(dir, true);
        t.working("dev-1", "developer");
        ApiClient.Reply r = t.api.verb(
                "dev-1", "request_sandbox", "{\"services\":[\"postgres\"],\"extensions\":{\"postgres\":[\"citext\"]}}");
        assertThat(r.status()).isEqualTo(200);
        assertThat(r.json()).containsEntry("ok", true).containsEntry("verb", "request_sandbox");
        List<Map<String, Object>> sandboxes =
                (List<Map<String, Object>>) ((Map<String, Object>) r.json().get("evidence")).get("sandboxes");
        assertThat(sandboxes).singleElement().satisfies(s -> {
            assertThat(s).containsEntry("service", "postgres").containsEntry("available_extensions", List.of("citext"));
            assertThat((Map<String, Object>) s.get("env"))
                    .containsKeys("ROBOCO_TEST_DB_HOST", "ROBOCO_TEST_DB_PASSWORD", "ROBOCO_TEST_DB_URL");
        });
        assertThat(t.runtime.runningCount()).as("whole opted-in set").isEqualTo(2);
    }

    @Test
    void guardOrderThroughHttp() {
        // role first, even with the flag off
        t = new TestServer(dir, false);
        t.working("rev-1", "reviewer");
        assertThat(reason(t.api.verb("rev-1", "request_sandbox", "{}")))
                .isEqualTo("role 'reviewer' does not carry request_sandbox; only developer and qa do");
        // 1. flag
        t.working("dev-1", "developer");
        assertThat(reason(t.api.verb("dev-1", "request_sandbox", "{}"))).contains("ROBOCO_SANDBOX_DB_ENABLED");
        t.close();

        t = new TestServer(dir, true);
        // 2. no active task
        t.api.admin("PUT", "/api/projects/shop", "{\"sandbox_services\":[\"postgres\"]}");
        t.api.orchestrator("POST", "/api/agents/dev-2/spawn", "{\"role\":\"developer\",\"project\":\"shop\"}");
        assertThat(reason(t.api.verb("dev-2", "request_sandbox", "{}"))).contains("no active, project-bound task");
        // 3. project not opted in
        t.api.admin("PUT", "/api/projects/plain", "{\"name\":\"Plain\"}");
        t.api.verb("dev-2", "give_me_work", "{\"project\":\"plain\",\"task\":\"T\"}");
        assertThat(reason(t.api.verb("dev-2", "request_sandbox", "{}"))).contains("has no sandbox_services");
        // 4. outside the set: refused naming the allowed set
        t.api.verb("dev-2", "give_me_work", "{\"project\":\"shop\",\"task\":\"T\"}");
        ApiClient.Reply outside = t.api.verb("dev-2", "request_sandbox", "{\"services\":[\"mongo\"]}");
        assertThat(outside.json()).containsEntry("error", "refused").containsEntry("retryable", false);
        assertThat(reason(outside)).contains("allowed: postgres");
        assertThat(reason(t.api.verb("dev-2", "request_sandbox", "{\"extensions\":{\"postgres\":[\"plpython3u\"]}}")))
                .contains("allowed: citext, pg_trgm, postgis, uuid-ossp, vector");
        assertThat(t.runtime.startCount()).isZero();
    }

    @Test
    void provisioningFailureIsRetryableInvalidState() {
        t = new TestServer(dir, true);
        t.working("dev-1", "developer");
        t.runtime.failStarts("image roboco/none:1 not found locally; build it first");
        ApiClient.Reply r = t.api.verb("dev-1", "request_sandbox", "{}");
        assertThat(r.status()).isEqualTo(200);
        assertThat(r.json())
                .containsEntry("ok", false)
                .containsEntry("error", "invalid_state")
                .containsEntry("retryable", true);
    }

    @Test
    void malformedVerbCallsAre400() {
        t = new TestServer(dir, true);
        t.working("dev-1", "developer");
        ApiClient.Reply unknown = t.api.verb("dev-1", "drop_tables", "{}");
        assertThat(unknown.status()).isEqualTo(400);
        assertThat(unknown.json()).containsEntry("error", "bad_request");
        assertThat((String) unknown.json().get("message")).contains("unknown verb 'drop_tables'");
        assertThat(t.api.verb("dev-1", "request_sandbox", "{\"services\":[\"post gres\"]}")
                        .status())
                .isEqualTo(400);
        assertThat(t.api.verb("dev-1", "request_sandbox", "{\"services\":\"postgres\"}")
                        .status())
                .isEqualTo(400);
        assertThat(t.api.verb("dev-1", "request_sandbox", "{\"services\":[").status())
                .isEqualTo(400);
        assertThat(t.api.verb("UPPER", "i_am_done", "{}").status()).isEqualTo(400);
        assertThat(t.api.verb("dev-1", "give_me_work", "{\"project\":\"shop\"}").status())
                .isEqualTo(400);
    }

    @Test
    void releaseAndLifecycleVerbsTearDown() {
        t = new TestServer(dir, true);
        t.working("dev-1", "developer");
        t.api.verb("dev-1", "request_sandbox", "{}");
        ApiClient.Reply release = t.api.verb("dev-1", "release_sandbox", null);
        assertThat(release.json()).containsEntry("ok", true).containsEntry("evidence", Map.of("removed", 2));
        t.api.verb("dev-1", "request_sandbox", "{}");
        ApiClient.Reply done = t.api.verb("dev-1", "i_am_done", "{}");
        assertThat(done.json()).containsEntry("ok", true).containsEntry("verb", "i_am_done");
        assertThat(t.runtime.runningCount()).isZero();
    }

    @Test
    void lifecycleVerbSucceedsWhenReleaseFails() {
        t = new TestServer(dir, true);
        t.working("qa-1", "qa");
        t.api.verb("qa-1", "request_sandbox", "{}");
        t.runtime.failRemovals(new IllegalStateException("daemon went away"));
        ApiClient.Reply r = t.api.verb("qa-1", "fail_review", "{}");
        assertThat(r.status()).isEqualTo(200);
        assertThat(r.json()).containsEntry("ok", true);
    }

    @Test
    void deletingTheAgentTearsDownItsSandboxAndForgetsIt() {
        t = new TestServer(dir, true);
        t.working("dev-1", "developer");
        t.api.verb("dev-1", "request_sandbox", "{}");
        ApiClient.Reply r = t.api.orchestrator("DELETE", "/api/agents/dev-1", null);
        assertThat(r.json()).containsEntry("ok", true).containsEntry("removed", 2);
        assertThat(t.runtime.runningCount()).isZero();
        assertThat(t.store.findAgent("dev-1")).isEmpty();
        assertThat((List<Object>)
                        t.api.admin("GET", "/api/sandboxes", null).json().get("sandboxes"))
                .isEmpty();
    }

    @Test
    void secretNeverAppearsInSandboxesOrAudit() {
        t = new TestServer(dir, true);
        t.working("dev-1", "developer");
        ApiClient.Reply r = t.api.verb("dev-1", "request_sandbox", "{}");
        List<Map<String, Object>> sandboxes =
                (List<Map<String, Object>>) ((Map<String, Object>) r.json().get("evidence")).get("sandboxes");
        String password = (String) ((Map<String, Object>) sandboxes.get(0).get("env")).get("ROBOCO_TEST_DB_PASSWORD");
        assertThat(password).isNotBlank();

        ApiClient.Reply live = t.api.admin("GET", "/api/sandboxes", null);
        assertThat(live.body()).doesNotContain(password).doesNotContain("PASSWORD");
        List<Map<String, Object>> entries =
                (List<Map<String, Object>>) live.json().get("sandboxes");
        assertThat(entries)
                .singleElement()
                .satisfies(e -> assertThat(e)
                        .containsEntry("agent", "dev-1")
                        .containsEntry("project", "shop")
                        .containsEntry("services", List.of("postgres", "redis"))
                        .containsKeys("containers", "created", "age_seconds"));
        assertThat(t.api.admin("GET", "/api/audit", null).body())
                .doesNotContain(password)
                .contains("granted");
    }

    @Test
    void storedSettingsThatNoLongerValidateAreRefusedNeverA500() {
        // The store can hold what the admin API would refuse (written before an engine or an allowlist entry went
        // away, or by hand). Guard 4 validates the whole request once, standing sets included; nothing after it
        // re-checks.
        t = new TestServer(dir, true);
        t.working("dev-1", "developer");
        t.store.saveProject(new Project("shop", "Shop", List.of("postgres", "mysql"), Map.of()));
        ApiClient.Reply unknownEngine = t.api.verb("dev-1", "request_sandbox", "{\"services\":[\"postgres\"]}");
        assertThat(unknownEngine.status()).isEqualTo(200);
        assertThat(unknownEngine.json())
                .containsEntry("ok", false)
                .containsEntry("error", "refused")
                .containsEntry("retryable", false);
        assertThat(reason(unknownEngine)).contains("'mysql'").contains("known: mongo, postgres, redis");

        t.store.saveProject(
                new Project("shop", "Shop", List.of("postgres"), Map.of("postgres", List.of("plpython3u"))));
        ApiClient.Reply offAllowlist = t.api.verb("dev-1", "request_sandbox", "{}");
        assertThat(offAllowlist.status()).isEqualTo(200);
        assertThat(offAllowlist.json()).containsEntry("error", "refused").containsEntry("retryable", false);
        assertThat(reason(offAllowlist))
                .contains("sandbox_extensions")
                .contains("'plpython3u'")
                .contains("allowed: citext, pg_trgm, postgis, uuid-ossp, vector");

        t.store.saveProject(new Project("shop", "Shop", List.of("redis"), Map.of("postgres", List.of("vector"))));
        ApiClient.Reply perCallOutside =
                t.api.verb("dev-1", "request_sandbox", "{\"extensions\":{\"mongo\":[\"search\"]}}");
        assertThat(perCallOutside.status()).isEqualTo(200);
        assertThat(reason(perCallOutside)).contains("not in project 'shop''s sandbox set; allowed: redis");
        assertThat(t.runtime.startCount())
                .as("nothing started for a refused request")
                .isZero();
    }

    @Test
    void faultAnswers500WithoutStackTrace() {
        t = new TestServer(dir, true);
        t.working("dev-1", "developer");
        t.store.failAgentReadsAfter(0);
        ApiClient.Reply r = t.api.verb("dev-1", "give_me_work", "{\"project\":\"shop\",\"task\":\"T\"}");
        assertThat(r.status()).isEqualTo(500);
        assertThat(r.json()).containsEntry("error", "internal");
        assertThat(r.body()).doesNotContain("settings store unavailable").doesNotContain("at io.");
    }

    private static String reason(ApiClient.Reply r) {
        return (String) r.json().get("reason");
    }
}
