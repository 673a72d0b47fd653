package io.roboco.sandbox.verbs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.roboco.sandbox.request.BadRequest;
import io.roboco.sandbox.settings.AuditRecord;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

@SuppressWarnings("unchecked")
class AgentVerbsTest {
    private final VerbsFixture fixture = new VerbsFixture(true);
    private final AgentVerbs verbs = fixture.verbs;

    @AfterEach
    void close() {
        fixture.close();
    }

    @Test
    void developerWithTaskGetsCredentialsForTheAskedServices() throws Exception {
        fixture.working("dev-1", "developer", "shop");
        Envelope e = verbs.call("dev-1", "request_sandbox", Map.of("services", List.of("postgres")));
        assertThat(e.ok()).isTrue();
        Map<String, Object> sandbox = sandboxes(e).get(0);
        assertThat(sandbox)
                .containsEntry("service", "postgres")
                .containsEntry("available_extensions", List.of("pg_trgm"));
        assertThat((Map<String, Object>) sandbox.get("env"))
                .containsKeys("ROBOCO_TEST_DB_HOST", "ROBOCO_TEST_DB_PASSWORD");
        assertThat(fixture.runtime.runningCount()).as("whole set provisioned").isEqualTo(2);
    }

    @Test
    void roleWithoutTheVerbIsRefusedBeforeAnyGuardAndAudited() throws Exception {
        fixture.working("rev-1", "reviewer", "shop");
        Envelope e = verbs.call("rev-1", "request_sandbox", Map.of());
        assertThat(e.asMap())
                .containsEntry("error", "refused")
                .containsEntry("retryable", false)
                .containsEntry("reason", "role 'reviewer' does not carry request_sandbox; only developer and qa do");
        List<AuditRecord> audit = fixture.store.recent("rev-1", "refused", 10);
        assertThat(audit).singleElement().satisfies(r -> assertThat(r.verb()).isEqualTo("request_sandbox"));
        assertThat(fixture.runtime.startCount()).isZero();
    }

    @Test
    void roleCheckComesBeforeTheFlagGuard() throws Exception {
        try (VerbsFixture off = new VerbsFixture(false)) {
            off.working("rev-1", "reviewer", "shop");
            assertThat((String) off.verbs
                            .call("rev-1", "request_sandbox", null)
                            .asMap()
                            .get("reason"))
                    .startsWith("role 'reviewer'");
            off.working("dev-1", "developer", "shop");
            assertThat((String) off.verbs
                            .call("dev-1", "request_sandbox", null)
                            .asMap()
                            .get("reason"))
                    .contains("ROBOCO_SANDBOX_DB_ENABLED");
        }
    }

    @Test
    void serviceOutsideProjectSetIsRefusedNamingTheAllowedSet() throws Exception {
        fixture.working("dev-1", "developer", "shop");
        Envelope e = verbs.call("dev-1", "request_sandbox", Map.of("services", List.of("mongo")));
        assertThat(e.asMap()).containsEntry("error", "refused");
        assertThat((String) e.asMap().get("reason")).contains("allowed: postgres, redis");
    }

    @Test
    void malformedArgumentsAreBadRequests() throws Exception {
        fixture.working("dev-1", "developer", "shop");
        assertThatThrownBy(() -> verbs.call("dev-1", "request_sandbox", Map.of("services", "postgres")))
                .isInstanceOf(BadRequest.class)
                .hasMessageContaining("array of strings");
        assertThatThrownBy(() -> verbs.call("dev-1", "request_sandbox", Map.of("services", List.of("Postgres!"))))
                .isInstanceOf(BadRequest.class)
                .hasMessageContaining("service name");
        assertThatThrownBy(() -> verbs.call("dev-1", "request_sandbox", Map.of("extensions", List.of("vector"))))
                .isInstanceOf(BadRequest.class)
                .hasMessageContaining("'extensions' must be an object");
        assertThatThrownBy(() ->
                        verbs.call("dev-1", "request_sandbox", Map.of("extensions", Map.of("postgres", List.of(1)))))
                .isInstanceOf(BadRequest.class);
        assertThatThrownBy(() -> verbs.call("dev-1", "request_sandbox", Map.of("servcies", List.of())))
                .isInstanceOf(BadRequest.class)
                .hasMessageContaining("unknown argument 'servcies'");
        assertThatThrownBy(() -> verbs.call("dev-1", "release_sandbox", Map.of("x", 1)))
                .isInstanceOf(BadRequest.class);
    }

    @Test
    void templateArgumentsAreCheckedForShapeBeforeAnyGuard() throws Exception {
        fixture.working("dev-1", "developer", "shop");
        assertThatThrownBy(() -> verbs.call("dev-1", "request_sandbox", Map.of("template", "Bad/Name")))
                .isInstanceOf(BadRequest.class)
                .hasMessageContaining("'template' must be a template name");
        assertThatThrownBy(() -> verbs.call("dev-1", "request_sandbox", Map.of("template", 3)))
                .isInstanceOf(BadRequest.class)
                .hasMessageContaining("'template'");
        assertThatThrownBy(() -> verbs.call("dev-1", "save_template", Map.of()))
                .isInstanceOf(BadRequest.class)
                .hasMessageContaining("'name' is required");
        assertThatThrownBy(() -> verbs.call("dev-1", "save_template", Map.of("name", "a", "replace", "yes")))
                .isInstanceOf(BadRequest.class)
                .hasMessageContaining("'replace' must be true or false");
        assertThatThrownBy(() -> verbs.call("dev-1", "save_template", Map.of("name", "a", "sql", "x")))
                .isInstanceOf(BadRequest.class)
                .hasMessageContaining("it takes: name, replace");
    }

    @Test
    void diffDataTakesACheckpointAndOnlyRolesCarryingItMayAsk() throws Exception {
        fixture.working("dev-1", "developer", "shop");
        assertThatThrownBy(() -> verbs.call("dev-1", "diff_data", Map.of("name", "before")))
                .isInstanceOf(BadRequest.class)
                .hasMessageContaining("it takes: checkpoint");
        assertThatThrownBy(() -> verbs.call("dev-1", "diff_data", Map.of()))
                .isInstanceOf(BadRequest.class)
                .hasMessageContaining("'checkpoint' is required");
        Envelope none = verbs.call("dev-1", "diff_data", Map.of("checkpoint", "before"));
        assertThat(none.ok()).isFalse();
        assertThat(none.asMap().get("reason").toString()).contains("call request_sandbox first");
        fixture.working("rev-1", "reviewer", "shop");
        assertThat(verbs.call("rev-1", "diff_data", Map.of("checkpoint", "before"))
                        .asMap()
                        .get("reason")
                        .toString())
                .contains("does not carry diff_data");
    }

    @Test
    void saveTemplateWithoutASandboxIsRefusedSayingOnlyOurOwnCanBecomeTemplates() throws Exception {
        fixture.working("dev-1", "developer", "shop");
        Envelope e = verbs.call("dev-1", "save_template", Map.of("name", "shop-v1"));
        assertThat(e.ok()).isFalse();
        assertThat(e.asMap().get("reason").toString()).contains("no live sandbox of 'dev-1'", "only our own sandboxes");
        fixture.working("rev-1", "reviewer", "shop");
        assertThat(verbs.call("rev-1", "save_template", Map.of("name", "shop-v1"))
                        .asMap()
                        .get("reason")
                        .toString())
                .contains("does not carry save_template");
    }

    @Test
    void unknownVerbAndBadSlugAreBadRequests() {
        assertThatThrownBy(() -> verbs.call("dev-1", "drop_database", Map.of()))
                .isInstanceOf(BadRequest.class)
                .hasMessageContaining("unknown verb 'drop_database'");
        assertThatThrownBy(() -> verbs.call("../etc", "i_am_done", Map.of())).isInstanceOf(BadRequest.class);
        assertThatThrownBy(() -> verbs.call("a".repeat(64), "i_am_done", Map.of()))
                .isInstanceOf(BadRequest.class);
    }

    @Test
    void giveMeWorkNeedsASpawnedAgentAndAKnownProject() throws Exception {
        assertThat(verbs.call("ghost", "give_me_work", Map.of("project", "shop", "task", "T"))
                        .asMap())
                .containsEntry("error", "refused");
        verbs.spawn("dev-1", "developer", "shop");
        Envelope unknown = verbs.call("dev-1", "give_me_work", Map.of("project", "nope", "task", "T"));
        assertThat((String) unknown.asMap().get("reason")).contains("project 'nope' is not known");
        assertThatThrownBy(() -> verbs.call("dev-1", "give_me_work", Map.of("project", "shop")))
                .isInstanceOf(BadRequest.class);
        Envelope ok = verbs.call("dev-1", "give_me_work", Map.of("project", "shop", "task", "T-9"));
        assertThat(ok.asMap())
                .containsEntry("ok", true)
                .containsEntry("evidence", Map.of("project", "shop", "task", "T-9"));
        assertThat(fixture.store.findAgent("dev-1").orElseThrow().hasActiveTask())
                .isTrue();
    }

    @Test
    void lifecycleExitClearsTaskAndReleasesTheSandbox() throws Exception {
        fixture.working("dev-1", "developer", "shop");
        verbs.call("dev-1", "request_sandbox", null);
        Envelope done = verbs.call("dev-1", "i_am_done", null);
        assertThat(done.asMap()).containsEntry("ok", true).containsEntry("verb", "i_am_done");
        assertThat((Map<String, Object>) done.asMap().get("evidence"))
                .containsEntry("sandbox_containers_removed", 2)
                .containsEntry("task_cleared", "T-1");
        assertThat(fixture.runtime.runningCount()).isZero();
        assertThat(fixture.store.findAgent("dev-1").orElseThrow().hasActiveTask())
                .isFalse();
    }

    @Test
    void lifecycleExitReleasesEvenWhenTheStoreCannotBeRead() throws Exception {
        fixture.working("dev-1", "developer", "shop");
        verbs.call("dev-1", "request_sandbox", null);
        // the verb's own look-up is the next call; the plugin's release look-up (the one after) fails:
        // the containers are removed all the same (a closing store must never leak a sandbox)
        fixture.store.failAgentReadsAfter(1);
        Envelope done = verbs.call("dev-1", "unclaim", null);
        assertThat(done.ok()).isTrue();
        assertThat((Map<String, Object>) done.asMap().get("evidence")).containsEntry("sandbox_containers_removed", 2);
        assertThat(fixture.runtime.runningCount()).isZero();
    }

    @Test
    void lifecycleExitSucceedsWhenContainerRemovalFails() throws Exception {
        fixture.working("qa-1", "qa", "shop");
        verbs.call("qa-1", "request_sandbox", null);
        fixture.runtime.failRemovals(new IllegalStateException("daemon gone"));
        assertThat(verbs.call("qa-1", "pass_review", null).ok()).isTrue();
    }

    @Test
    void everyLifecycleExitOfTheRoleReleases() throws Exception {
        for (String verb : List.of("i_am_done", "unclaim", "i_am_idle", "pass_review", "fail_review")) {
            fixture.working("qa-1", "qa", "shop");
            verbs.call("qa-1", "request_sandbox", null);
            assertThat(verbs.call("qa-1", verb, null).ok()).as(verb).isTrue();
            assertThat(fixture.runtime.runningCount()).as(verb).isZero();
        }
        fixture.working("doc-1", "documenter", "shop");
        assertThat(verbs.call("doc-1", "i_documented", null).ok()).isTrue();
        assertThat(fixture.store.recent("doc-1", "released", 5))
                .extracting(AuditRecord::verb)
                .containsExactly("i_documented");
    }

    @Test
    void lifecycleVerbNotCarriedByRoleIsRefused() throws Exception {
        fixture.working("rev-1", "reviewer", "shop");
        Envelope e = verbs.call("rev-1", "i_documented", null);
        assertThat((String) e.asMap().get("reason"))
                .isEqualTo("role 'reviewer' does not carry i_documented; only developer and documenter do");
    }

    @Test
    void releaseSandboxReportsRemovedCount() throws Exception {
        fixture.working("dev-1", "developer", "shop");
        verbs.call("dev-1", "request_sandbox", Map.of("services", List.of("redis")));
        Envelope e = verbs.call("dev-1", "release_sandbox", Map.of());
        assertThat(e.asMap())
                .containsEntry("ok", true)
                .containsEntry("verb", "release_sandbox")
                .containsEntry("evidence", Map.of("removed", 2));
    }

    @Test
    void containerRemovalTearsDownAndForgetsTheAgent() throws Exception {
        fixture.working("dev-1", "developer", "shop");
        verbs.call("dev-1", "request_sandbox", null);
        assertThat(verbs.containerRemoved("dev-1")).isEqualTo(2);
        assertThat(fixture.store.findAgent("dev-1")).isEmpty();
        assertThat(fixture.runtime.runningCount()).isZero();
    }

    @SuppressWarnings("unchecked")
    private static List<Map<String, Object>> sandboxes(Envelope e) {
        return (List<Map<String, Object>>) ((Map<String, Object>) e.asMap().get("evidence")).get("sandboxes");
    }
}
