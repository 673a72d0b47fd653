package io.roboco.sandbox.data;

import static org.assertj.core.api.Assertions.assertThat;

import io.roboco.sandbox.engine.Credentials;
import io.roboco.sandbox.engine.DataDiff;
import io.roboco.sandbox.engine.DataDiffs;
import io.roboco.sandbox.engine.Endpoint;
import io.roboco.sandbox.engine.ProbeTarget;
import io.roboco.sandbox.engine.UnknownNameException;
import io.roboco.sandbox.provision.ServiceInstance;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * diff_data's answer over services whose diffs are scripted: the parts and counts as the engines found them, the
 * samples of the whole answer stopped at the budget (the counts never), an unknown checkpoint refused, and an engine's
 * failure reported without the service's passwords.
 */
@SuppressWarnings("unchecked")
class SandboxDataDiffTest {
    private static final DataDiffs.Limits LIMITS = DataDiffs.Limits.DEFAULT;

    @Test
    void answersEveryServicesPartsWithTheirCountsAndSamples() {
        DataDiff.Tally tally = new DataDiff.Tally(LIMITS);
        tally.inserted("7");
        tally.updated("2");
        tally.same();
        DataDiff pg = new DataDiff(
                List.of(tally.part(
                        "table",
                        "public.users",
                        "id",
                        DataDiff.Status.CHANGED,
                        List.of(new DataDiff.Sample("7", null, "{\"id\":7}")),
                        List.of(new DataDiff.Sample("2", "{\"id\":2,\"v\":1}", "{\"id\":2,\"v\":2}")),
                        List.of(),
                        null)),
                0,
                2);
        DataDiff redis = new DataDiff(List.of(), 0, 1);
        Map<String, Object> evidence =
                done(diff(member("postgres", (t, c, l) -> pg), member("redis", (t, c, l) -> redis)));

        assertThat(evidence).containsEntry("checkpoint", "before").containsEntry("empty", false);
        List<Map<String, Object>> services = (List<Map<String, Object>>) evidence.get("services");
        assertThat(services).extracting(s -> s.get("service")).containsExactly("postgres", "redis");
        assertThat(services.get(1)).containsEntry("empty", true).containsEntry("unchanged", 1);
        Map<String, Object> users = ((List<Map<String, Object>>) services.get(0).get("changes")).get(0);
        assertThat(users)
                .containsEntry("status", "changed")
                .containsEntry("matched_by", "id")
                .containsEntry("inserted", 1L)
                .containsEntry("updated", 1L)
                .containsEntry("deleted", 0L)
                .containsEntry("before", 2L)
                .containsEntry("after", 3L)
                .doesNotContainKey("samples_cut");
        Map<String, Object> samples = (Map<String, Object>) users.get("samples");
        assertThat((List<Map<String, Object>>) samples.get("inserted"))
                .containsExactly(Map.of("key", "7", "after", "{\"id\":7}"));
        assertThat((List<Map<String, Object>>) samples.get("updated"))
                .containsExactly(Map.of("key", "2", "before", "{\"id\":2,\"v\":1}", "after", "{\"id\":2,\"v\":2}"));
        assertThat(evidence).containsEntry("samples_cut", false);
    }

    @Test
    void samplesStopAtTheAnswersBudgetButCountsStayComplete() {
        String row = "x".repeat(LIMITS.valueChars());
        List<DataDiff.Part> parts = new ArrayList<>();
        for (int i = 0; i < LIMITS.parts(); i++) {
            List<DataDiff.Sample> five = new ArrayList<>();
            for (int j = 0; j < LIMITS.samples(); j++) {
                five.add(new DataDiff.Sample(Integer.toString(j), row, row));
            }
            parts.add(new DataDiff.Part(
                    "table",
                    "public.t" + i,
                    "id",
                    DataDiff.Status.CHANGED,
                    0,
                    1000,
                    0,
                    1000,
                    1000,
                    List.of(),
                    five,
                    List.of(),
                    null));
        }
        DataDiff big = new DataDiff(parts, 7, 0);
        Map<String, Object> evidence = done(diff(member("postgres", (t, c, l) -> big)));

        Map<String, Object> service = ((List<Map<String, Object>>) evidence.get("services")).get(0);
        assertThat(service).containsEntry("unlisted_changes", 7);
        List<Map<String, Object>> changes = (List<Map<String, Object>>) service.get("changes");
        assertThat(changes)
                .hasSize(LIMITS.parts())
                .allSatisfy(p -> assertThat(p).containsEntry("updated", 1000L));
        long sampleChars = changes.stream()
                .flatMap(p ->
                        ((List<Map<String, Object>>) ((Map<String, Object>) p.get("samples")).get("updated")).stream())
                .mapToLong(s -> ((String) s.get("before")).length() + ((String) s.get("after")).length() + 1)
                .sum();
        assertThat(sampleChars).isLessThanOrEqualTo(SandboxDataDiff.SAMPLE_BUDGET);
        assertThat(evidence).containsEntry("samples_cut", true);
        assertThat(changes.get(changes.size() - 1)).containsEntry("samples_cut", true);
    }

    @Test
    void anUnknownCheckpointIsRefusedWithTheEnginesMessage() {
        DataOutcome outcome = diff(member("postgres", (t, c, l) -> {
            throw new UnknownNameException("no checkpoint '" + c + "' in this sandbox; there are: kept");
        }));
        assertThat(outcome).isInstanceOf(DataOutcome.Refused.class);
        assertThat(((DataOutcome.Refused) outcome).reason())
                .contains("no checkpoint 'before'", "kept", "checkpoint_sandbox");
    }

    @Test
    void anEnginesFailureIsRetryableAndLosesThePasswords() {
        DataOutcome outcome = diff(member("redis", (t, c, l) -> {
            throw new IllegalStateException("AUTH adm1n-pw failed for s3cret");
        }));
        assertThat(outcome).isInstanceOf(DataOutcome.Failed.class);
        DataOutcome.Failed failed = (DataOutcome.Failed) outcome;
        assertThat(failed.retryable()).isTrue();
        assertThat(failed.reason())
                .startsWith("diff_data failed on redis")
                .doesNotContain("adm1n-pw", "s3cret")
                .contains("<redacted>");
    }

    private static DataOutcome diff(SandboxDataDiff.Member... members) {
        return new SandboxDataDiff(List.of(members), LIMITS).diff("before");
    }

    private static Map<String, Object> done(DataOutcome outcome) {
        assertThat(outcome).isInstanceOf(DataOutcome.Done.class);
        return ((DataOutcome.Done) outcome).evidence();
    }

    private static SandboxDataDiff.Member member(String service, DataDiffs diffs) {
        Credentials credentials = new Credentials("admin", "adm1n-pw", "agent", "s3cret", "db");
        ServiceInstance instance = new ServiceInstance(
                service,
                "image",
                "id-" + service,
                service,
                new Endpoint("127.0.0.1", 1),
                credentials,
                Set.of(),
                Instant.EPOCH);
        return new SandboxDataDiff.Member(service, instance, diffs, ProbeTarget.of(instance.endpoint(), credentials));
    }
}
