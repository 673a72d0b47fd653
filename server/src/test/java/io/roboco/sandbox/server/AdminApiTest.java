package io.roboco.sandbox.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.roboco.sandbox.engine.EngineRegistry;
import io.roboco.sandbox.provision.Seed;
import io.roboco.sandbox.server.config.ServerConfig;
import io.roboco.sandbox.testkit.ApiClient;
import io.roboco.sandbox.testkit.FakeSettingsStore;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

@SuppressWarnings("unchecked")
class AdminApiTest {
    @TempDir
    Path dir;

    @Test
    void putProjectSavesValidatedSettingsAndGetShowsThem() {
        try (TestServer t = new TestServer(dir, true)) {
            ApiClient.Reply r = t.api.admin(
                    "PUT",
                    "/api/projects/shop",
                    "{\"name\":\"Shop\",\"sandbox_services\":[\"postgres\",\"redis\"],\"sandbox_extensions\":{\"postgres\":[\"pg_trgm\"]}}");
            assertThat(r.status()).isEqualTo(200);
            assertThat(r.json())
                    .containsEntry("id", "shop")
                    .containsEntry("sandbox_services", List.of("postgres", "redis"))
                    .containsEntry("sandbox_extensions", Map.of("postgres", List.of("pg_trgm")));
            assertThat(t.api.admin("GET", "/api/projects/shop", null).json()).containsEntry("name", "Shop");
            assertThat((List<Object>)
                            t.api.admin("GET", "/api/projects", null).json().get("projects"))
                    .hasSize(1);
            assertThat(t.api.admin("GET", "/api/projects/none", null).status()).isEqualTo(404);
        }
    }

    @Test
    void extensionForServiceOutsideTheSetIs400AndNothingSaved() {
        try (TestServer t = new TestServer(dir, true)) {
            ApiClient.Reply r = t.api.admin(
                    "PUT",
                    "/api/projects/shop",
                    "{\"sandbox_services\":[\"postgres\"],\"sandbox_extensions\":{\"redis\":[\"search\"]}}");
            assertThat(r.status()).isEqualTo(400);
            assertThat(r.json()).containsEntry("error", "bad_request");
            assertThat((String) r.json().get("message"))
                    .contains("not in sandbox_services")
                    .contains("nothing saved");
            assertThat(t.store.findProject("shop")).isEmpty();
        }
    }

    @Test
    void unknownEngineAndDisallowedExtensionAre400NamingWhatIsAllowed() {
        try (TestServer t = new TestServer(dir, true)) {
            ApiClient.Reply engine = t.api.admin("PUT", "/api/projects/shop", "{\"sandbox_services\":[\"mysql\"]}");
            assertThat(engine.status()).isEqualTo(400);
            assertThat((String) engine.json().get("message")).contains("known: mongo, postgres, redis");
            ApiClient.Reply ext = t.api.admin(
                    "PUT",
                    "/api/projects/shop",
                    "{\"sandbox_services\":[\"postgres\"],\"sandbox_extensions\":{\"postgres\":[\"plpython3u\"]}}");
            assertThat(ext.status()).isEqualTo(400);
            assertThat((String) ext.json().get("message"))
                    .contains("allowed: citext, pg_trgm, postgis, uuid-ossp, vector");
            assertThat(t.store.findProject("shop")).isEmpty();
        }
    }

    private TestServer realEngines() {
        return new TestServer(
                ServerConfig.defaults(dir)
                        .withPort(0)
                        .withFlag(true)
                        .withTokens(ApiClient.API_TOKEN, ApiClient.ADMIN_TOKEN),
                EngineRegistry.defaults());
    }

    @Test
    void sandboxVersionsAreSavedShownAndValidated() {
        try (TestServer t = realEngines()) {
            ApiClient.Reply r = t.api.admin(
                    "PUT",
                    "/api/projects/shop",
                    "{\"sandbox_services\":[\"postgres\",\"redis\"],\"sandbox_versions\":{\"postgres\":\"17\"}}");
            assertThat(r.status()).isEqualTo(200);
            assertThat(r.json()).containsEntry("sandbox_versions", Map.of("postgres", "17"));
            assertThat(t.api.admin("GET", "/api/projects/shop", null).json())
                    .containsEntry("sandbox_versions", Map.of("postgres", "17"));
            assertThat(t.store.findProject("shop").orElseThrow().versionFor("postgres"))
                    .isEqualTo("17");

            ApiClient.Reply unknown = t.api.admin(
                    "PUT",
                    "/api/projects/shop",
                    "{\"sandbox_services\":[\"postgres\"],\"sandbox_versions\":{\"postgres\":\"12\"}}");
            assertThat(unknown.status()).isEqualTo(400);
            assertThat((String) unknown.json().get("message"))
                    .contains("sandbox_versions.postgres", "no major '12'", "known: 15, 16, 17");
            ApiClient.Reply outside = t.api.admin(
                    "PUT",
                    "/api/projects/shop",
                    "{\"sandbox_services\":[\"postgres\"],\"sandbox_versions\":{\"redis\":\"7\"}}");
            assertThat(outside.status()).isEqualTo(400);
            assertThat((String) outside.json().get("message")).contains("not in sandbox_services");
            assertThat(t.store.findProject("shop").orElseThrow().versionFor("postgres"))
                    .as("nothing saved")
                    .isEqualTo("17");
        }
    }

    @Test
    void aStandingExtensionThePickedMajorsImageLacksIs400() {
        try (TestServer t = realEngines()) {
            // Production images (postgres:N-alpine) carry contrib only: no major offers vector.
            ApiClient.Reply r = t.api.admin(
                    "PUT",
                    "/api/projects/shop",
                    "{\"sandbox_services\":[\"postgres\"],\"sandbox_versions\":{\"postgres\":\"17\"},"
                            + "\"sandbox_extensions\":{\"postgres\":[\"vector\"]}}");
            assertThat(r.status()).isEqualTo(400);
            assertThat((String) r.json().get("message"))
                    .contains("'vector'", "postgres 17 (image postgres:17-alpine)", "nothing saved");
            assertThat(t.store.findProject("shop")).isEmpty();
        }
    }

    @Test
    void sandboxSeedIsSavedShownAndValidatedNamingTheLimit() {
        try (TestServer t = realEngines()) {
            ApiClient.Reply clone = t.api.admin(
                    "PUT",
                    "/api/projects/shop",
                    "{\"sandbox_services\":[\"postgres\"],"
                            + "\"sandbox_seed\":{\"postgres\":{\"clone\":{\"url_env\":\"SHOP_DB_URL\",\"data\":{\"max_rows_per_table\":100}}}}}");
            assertThat(clone.status()).as(clone.body()).isEqualTo(200);
            assertThat(clone.json())
                    .containsEntry(
                            "sandbox_seed",
                            Map.of(
                                    "postgres",
                                    Map.of(
                                            "clone",
                                            Map.of(
                                                    "url_env",
                                                    "SHOP_DB_URL",
                                                    "data",
                                                    Map.of("max_rows_per_table", 100)))));
            ApiClient.Reply sql = t.api.admin(
                    "PUT",
                    "/api/projects/shop",
                    "{\"sandbox_services\":[\"postgres\"],\"sandbox_seed\":{\"postgres\":{\"sql\":\"create table t (id int)\"}}}");
            assertThat(sql.status()).isEqualTo(200);
            assertThat(t.store.findProject("shop").orElseThrow().seedFor("postgres"))
                    .isEqualTo(new Seed.Sql("create table t (id int)"));

            String big = "x".repeat(256 * 1024 + 1);
            ApiClient.Reply tooBig = t.api.admin(
                    "PUT",
                    "/api/projects/shop",
                    "{\"sandbox_services\":[\"postgres\"],\"sandbox_seed\":{\"postgres\":{\"sql\":\"" + big + "\"}}}");
            assertThat(tooBig.status()).isEqualTo(400);
            assertThat((String) tooBig.json().get("message")).contains("the limit is 262144 bytes (256 KiB)");
            ApiClient.Reply ownSecret = t.api.admin(
                    "PUT",
                    "/api/projects/shop",
                    "{\"sandbox_services\":[\"postgres\"],"
                            + "\"sandbox_seed\":{\"postgres\":{\"clone\":{\"url_env\":\"ROBOCO_SANDBOX_ADMIN_TOKEN\"}}}}");
            assertThat(ownSecret.status()).isEqualTo(400);
            assertThat((String) ownSecret.json().get("message"))
                    .contains("may not name one of the server's own settings");
            ApiClient.Reply redis = t.api.admin(
                    "PUT",
                    "/api/projects/shop",
                    "{\"sandbox_services\":[\"postgres\",\"redis\"],\"sandbox_seed\":{\"redis\":{\"sql\":\"x\"}}}");
            assertThat((String) redis.json().get("message")).contains("only postgres sandboxes take a seed");
            ApiClient.Reply two = t.api.admin(
                    "PUT",
                    "/api/projects/shop",
                    "{\"sandbox_services\":[\"postgres\"],\"sandbox_seed\":{\"postgres\":{\"sql\":\"x\",\"template\":\"t\"}}}");
            assertThat((String) two.json().get("message")).contains("exactly one of");
            assertThat(t.store.findProject("shop").orElseThrow().seedFor("postgres"))
                    .as("nothing saved")
                    .isEqualTo(new Seed.Sql("create table t (id int)"));
        }
    }

    @Test
    void malformedProjectBodiesAre400() {
        try (TestServer t = new TestServer(dir, true)) {
            assertThat(t.api.admin("PUT", "/api/projects/shop", "{not json").status())
                    .isEqualTo(400);
            assertThat(t.api.admin("PUT", "/api/projects/shop", "[1,2]").status())
                    .isEqualTo(400);
            assertThat(t.api.admin("PUT", "/api/projects/shop", "{\"sandbox_service\":[\"postgres\"]}")
                            .status())
                    .isEqualTo(400);
            assertThat(t.api.admin("PUT", "/api/projects/shop", "{\"sandbox_services\":\"postgres\"}")
                            .status())
                    .isEqualTo(400);
            assertThat(t.api.admin("PUT", "/api/projects/sh%20op", "{}").status())
                    .isEqualTo(400);
            ApiClient.Reply dup = t.api.admin("PUT", "/api/projects/shop", "{\"name\":\"a\",\"name\":\"b\"}");
            assertThat(dup.status()).isEqualTo(400);
            assertThat(dup.body()).doesNotContain("at com.").doesNotContain("Exception");
        }
    }

    @Test
    void storedFlagDiffersFromEffectiveUntilRestart() {
        try (TestServer t = new TestServer(dir, null)) {
            Map<String, Object> before = (Map<String, Object>)
                    t.api.admin("GET", "/api/flags", null).json().get("ROBOCO_SANDBOX_DB_ENABLED");
            assertThat(before)
                    .containsEntry("effective", false)
                    .containsEntry("pending_restart", false)
                    .containsEntry("stored", null);
            ApiClient.Reply put = t.api.admin("PUT", "/api/flags/ROBOCO_SANDBOX_DB_ENABLED", "{\"enabled\":true}");
            assertThat(put.status()).isEqualTo(200);
            assertThat(put.json())
                    .containsEntry("stored", true)
                    .containsEntry("effective", false)
                    .containsEntry("pending_restart", true);
            t.working("dev-1", "developer");
            assertThat((String)
                            t.api.verb("dev-1", "request_sandbox", "{}").json().get("reason"))
                    .contains("ROBOCO_SANDBOX_DB_ENABLED is off");
        }
    }

    @Test
    void storedFlagTakesEffectOnRestart() {
        FakeSettingsStore seeded = new FakeSettingsStore();
        seeded.storeFlag("ROBOCO_SANDBOX_DB_ENABLED", true);
        try (TestServer t = new TestServer(
                ServerConfig.defaults(dir).withPort(0).withTokens(ApiClient.API_TOKEN, ApiClient.ADMIN_TOKEN),
                seeded)) {
            Map<String, Object> flag = (Map<String, Object>)
                    t.api.admin("GET", "/api/flags", null).json().get("ROBOCO_SANDBOX_DB_ENABLED");
            assertThat(flag)
                    .containsEntry("stored", true)
                    .containsEntry("effective", true)
                    .containsEntry("pending_restart", false);
        }
    }

    @Test
    void envOverrideWinsAndIsShown() {
        try (TestServer t = new TestServer(dir, false)) {
            t.api.admin("PUT", "/api/flags/ROBOCO_SANDBOX_DB_ENABLED", "{\"enabled\":true}");
            Map<String, Object> flag = (Map<String, Object>)
                    t.api.admin("GET", "/api/flags", null).json().get("ROBOCO_SANDBOX_DB_ENABLED");
            assertThat(flag)
                    .containsEntry("env_override", false)
                    .containsEntry("effective", false)
                    .containsEntry("pending_restart", false);
        }
    }

    @Test
    void badFlagBodiesAndNamesAreRejected() {
        try (TestServer t = new TestServer(dir, true)) {
            assertThat(t.api.admin("PUT", "/api/flags/ROBOCO_SANDBOX_DB_ENABLED", "{\"enabled\":\"yes\"}")
                            .status())
                    .isEqualTo(400);
            assertThat(t.api.admin("PUT", "/api/flags/ROBOCO_SANDBOX_DB_ENABLED", "")
                            .status())
                    .isEqualTo(400);
            assertThat(t.api.admin("PUT", "/api/flags/OTHER_FLAG", "{\"enabled\":true}")
                            .status())
                    .isEqualTo(404);
        }
    }

    @Test
    void auditFiltersAndRejectsBadLimits() {
        try (TestServer t = new TestServer(dir, true)) {
            t.working("rev-1", "reviewer");
            t.api.verb("rev-1", "request_sandbox", "{}");
            List<Map<String, Object>> records = (List<Map<String, Object>>)
                    t.api.admin("GET", "/api/audit?agent=rev-1&decision=refused&limit=5", null)
                            .json()
                            .get("records");
            assertThat(records)
                    .singleElement()
                    .satisfies(r -> assertThat(r)
                            .containsEntry("verb", "request_sandbox")
                            .containsKeys("time", "reason", "services", "duration_ms"));
            assertThat(t.api.admin("GET", "/api/audit?limit=0", null).status()).isEqualTo(400);
            assertThat(t.api.admin("GET", "/api/audit?limit=abc", null).status())
                    .isEqualTo(400);
        }
    }
}
