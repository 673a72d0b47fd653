package io.roboco.sandbox.lifecycle;

import static org.assertj.core.api.Assertions.assertThat;

import io.roboco.sandbox.it.OperatorCli;
import io.roboco.sandbox.settings.InMemorySettingsStore;
import io.roboco.sandbox.testkit.ApiClient;
import java.nio.file.Path;
import java.time.Clock;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** Doctor, metrics and the operator CLI against a real server over real Docker; the CLI runs as {@code java -jar}. */
@Timeout(value = 5, unit = TimeUnit.MINUTES)
class OpsIT {
    /** A sample line of the Prometheus text format: name, optional {labels}, value. */
    private static final Pattern SAMPLE =
            Pattern.compile("([a-zA-Z_:][a-zA-Z0-9_:]*)(\\{[^}]*\\})? (-?[0-9.eE+-]+|NaN|\\+Inf|-Inf)");

    @TempDir
    Path dir;

    @Test
    @SuppressWarnings("unchecked")
    void doctorIsAllOkOnAHealthyServerAndTheCliExitsZero() throws Exception {
        try (LifecycleServer s =
                new LifecycleServer(dir.resolve("state"), Map.of(), new InMemorySettingsStore(), Clock.systemUTC())) {
            ApiClient.Reply r = s.api.admin("GET", "/api/doctor", null);
            assertThat(r.status()).isEqualTo(200);
            List<Map<String, Object>> checks =
                    (List<Map<String, Object>>) r.json().get("checks");
            assertThat(checks)
                    .extracting(c -> c.get("name"))
                    .contains(
                            "docker",
                            "image:postgres",
                            "image:redis",
                            "image:mongo",
                            "store",
                            "state-dir",
                            "tokens",
                            "secret-key",
                            "flag",
                            "pool",
                            "capacity",
                            "janitor",
                            "limits");
            assertThat(checks)
                    .allSatisfy(c ->
                            assertThat(c.get("status")).as(String.valueOf(c)).isEqualTo("ok"));
            assertThat(r.json()).containsEntry("ok", true);
            assertThat(r.body()).doesNotContain(ApiClient.ADMIN_TOKEN).doesNotContain(ApiClient.API_TOKEN);

            OperatorCli.Run doctor = OperatorCli.run(OperatorCli.against(s.server.port()), "doctor");
            assertThat(doctor.exit()).isZero();
            assertThat(doctor.out())
                    .contains("the server at")
                    .contains("image:redis")
                    .contains("all checks pass");
        }
    }

    @Test
    @SuppressWarnings("unchecked")
    void aMissingImageIsAFailWithTheFixAndTheCliExitsOne() throws Exception {
        try (LifecycleServer s = new LifecycleServer(
                dir.resolve("state"),
                Map.of("ROBOCO_SANDBOX_IMAGE_REDIS", "roboco-sandbox/redis:absent-0"),
                new InMemorySettingsStore(),
                Clock.systemUTC())) {
            List<Map<String, Object>> checks = (List<Map<String, Object>>)
                    s.api.admin("GET", "/api/doctor", null).json().get("checks");
            Map<String, Object> redis = checks.stream()
                    .filter(c -> c.get("name").equals("image:redis"))
                    .findFirst()
                    .orElseThrow();
            assertThat(redis).containsEntry("status", "fail");
            assertThat((String) redis.get("detail")).contains("roboco-sandbox/redis:absent-0");
            assertThat((String) redis.get("fix"))
                    .contains("./scripts/build-images.sh")
                    .contains("ROBOCO_SANDBOX_IMAGE_REDIS");
            assertThat(checks.stream()
                            .filter(c -> c.get("name").equals("image:postgres"))
                            .findFirst()
                            .orElseThrow())
                    .containsEntry("status", "ok");

            OperatorCli.Run doctor = OperatorCli.run(OperatorCli.against(s.server.port()), "doctor");
            assertThat(doctor.exit()).isEqualTo(1);
            assertThat(doctor.out()).contains("image:redis").contains("fail").contains("some checks FAIL");
            OperatorCli.Run json = OperatorCli.run(OperatorCli.against(s.server.port()), "doctor", "--json");
            assertThat(json.exit()).isEqualTo(1);
            assertThat(json.out()).contains("\"ok\" : false");
        }
    }

    @Test
    void metricsParseAsPrometheusTextAndShowAColdRequestACacheHitAndARefusal() throws Exception {
        try (LifecycleServer s =
                new LifecycleServer(dir.resolve("state"), Map.of(), new InMemorySettingsStore(), Clock.systemUTC())) {
            s.api.working("dev-1", "shop", "[\"redis\"]");
            assertThat(s.api.requestSandboxRetrying("dev-1", 3).ok()).isTrue();
            assertThat(s.api.requestSandbox("dev-1").ok()).isTrue();
            ApiClient.Reply refused = s.api.verb("dev-1", "request_sandbox", "{\"services\":[\"mongo\"]}");
            assertThat(refused.json()).containsEntry("error", "refused");

            ApiClient.Reply metrics = s.api.send("GET", "/metrics", null, null);
            assertThat(metrics.status()).isEqualTo(200);
            Map<String, Double> samples = parse(metrics.body());
            assertThat(samples.get("roboco_sandbox_request_seconds_count{path=\"cold\"}"))
                    .isEqualTo(1.0);
            assertThat(samples.get("roboco_sandbox_request_seconds_count{path=\"hit\"}"))
                    .isEqualTo(1.0);
            assertThat(samples.get("roboco_sandbox_refusals_total{reason=\"not_allowed\"}"))
                    .isEqualTo(1.0);
            assertThat(samples.get("roboco_sandbox_live_sandboxes{kind=\"default\"}"))
                    .isEqualTo(1.0);
            assertThat(samples.get("roboco_sandbox_live_containers{engine=\"redis\"}"))
                    .isEqualTo(1.0);
            assertThat(samples)
                    .containsKey("roboco_sandbox_capacity_used_containers")
                    .containsKey("roboco_sandbox_capacity_max_containers");
            assertThat(samples.keySet())
                    .anyMatch(k -> k.startsWith("roboco_sandbox_request_seconds_bucket{") && k.contains("le=\""));
            assertThat(metrics.body())
                    .doesNotContain("dev-1")
                    .doesNotContain("shop")
                    .doesNotContain("sbx_");
        }
    }

    @Test
    @SuppressWarnings("unchecked")
    void theCliListsDeletesReleasesAndCleansUpAndRefusesBadUsage() throws Exception {
        try (LifecycleServer s =
                new LifecycleServer(dir.resolve("state"), Map.of(), new InMemorySettingsStore(), Clock.systemUTC())) {
            s.api.working("dev-1", "shop", "[\"redis\"]");
            assertThat(s.api.requestSandboxRetrying("dev-1", 3).ok()).isTrue();
            String id = (String) TtlIT.sandbox(
                            s.create(
                                    "{\"owner\":\"job:ci-1\",\"project\":\"shop\",\"name\":\"before\",\"labels\":{\"run\":\"7\"}}"))
                    .get("id");
            int port = s.server.port();

            OperatorCli.Run table = OperatorCli.run(OperatorCli.against(port), "list");
            assertThat(table.exit()).isZero();
            assertThat(table.out())
                    .contains("ID")
                    .contains(id)
                    .contains("before")
                    .contains("run=7")
                    .contains("dev-1")
                    .contains("sandbox containers live")
                    .doesNotContain("PASSWORD");
            OperatorCli.Run json = OperatorCli.run(OperatorCli.against(port), "list", "--owner", "job:ci-1", "--json");
            assertThat(json.out()).contains(id).doesNotContain("\"dev-1\"");

            assertThat(OperatorCli.run(OperatorCli.against(port), "delete", id).exit())
                    .isZero();
            assertThat(s.running()).hasSize(1);
            assertThat(OperatorCli.run(OperatorCli.against(port), "release", "dev-1")
                            .exit())
                    .isZero();
            assertThat(s.running()).isEmpty();
            OperatorCli.Run cleanup = OperatorCli.run(OperatorCli.against(port), "cleanup", "--dry-run");
            assertThat(cleanup.exit()).isZero();
            assertThat(cleanup.out()).contains("dry run: nothing removed");
            assertThat(OperatorCli.run(
                                    OperatorCli.against(port),
                                    "cleanup",
                                    "--foreign",
                                    "--older-than",
                                    "1h",
                                    "--dry-run")
                            .exit())
                    .isZero();

            assertThat(OperatorCli.run(OperatorCli.against(port), "cleanup", "--older-than", "1h")
                            .exit())
                    .as("--older-than without --foreign")
                    .isEqualTo(2);
            assertThat(OperatorCli.run(OperatorCli.against(port), "delete", "not-an-id")
                            .exit())
                    .isEqualTo(2);
            assertThat(OperatorCli.run(OperatorCli.against(port), "frobnicate").exit())
                    .as("unknown command")
                    .isEqualTo(2);
            assertThat(OperatorCli.run(OperatorCli.against(port), "delete", "sbx_0000")
                            .exit())
                    .as("unknown sandbox")
                    .isEqualTo(1);
            assertThat(OperatorCli.run(OperatorCli.against(port), "list", "--help")
                            .out())
                    .contains("Example: roboco-sandbox list");
        }
    }

    /** Every sample of a Prometheus text exposition, by name and labels; fails on a line that is neither a comment nor a sample. */
    private static Map<String, Double> parse(String text) {
        Map<String, Double> samples = new HashMap<>();
        for (String line : text.split("\n")) {
            if (line.isBlank() || line.startsWith("# HELP ") || line.startsWith("# TYPE ")) {
                continue;
            }
            Matcher m = SAMPLE.matcher(line);
            assertThat(m.matches()).as("a Prometheus sample line: %s", line).isTrue();
            samples.put(
                    m.group(1) + (m.group(2) == null ? "" : m.group(2)),
                    Double.parseDouble(m.group(3).replace("+Inf", "Infinity")));
        }
        return samples;
    }
}
