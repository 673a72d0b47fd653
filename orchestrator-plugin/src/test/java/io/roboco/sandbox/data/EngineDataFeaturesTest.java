package io.roboco.sandbox.data;

import static org.assertj.core.api.Assertions.assertThat;

import io.roboco.sandbox.engine.Checkpoints;
import io.roboco.sandbox.engine.Credentials;
import io.roboco.sandbox.engine.Endpoint;
import io.roboco.sandbox.engine.EngineRegistry;
import io.roboco.sandbox.engine.ProbeTarget;
import io.roboco.sandbox.engine.SecretSource;
import io.roboco.sandbox.engine.UnknownNameException;
import io.roboco.sandbox.manager.SandboxManager;
import io.roboco.sandbox.provision.ProvisionSettings;
import io.roboco.sandbox.provision.ServiceInstance;
import io.roboco.sandbox.provision.ServiceProvisioner;
import io.roboco.sandbox.settings.InMemorySettingsStore;
import io.roboco.sandbox.testkit.FakeContainerRuntime;
import io.roboco.sandbox.testkit.StubEngine;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The core asks the engines for data features and names none (issue 19 item 3): an engine that offers
 * {@link Checkpoints} (one class, one registry line) gets checkpoint and rewind of the sandbox's service it runs, whatever
 * its name; a sandbox without such a service is refused naming the engines that would do it.
 */
class EngineDataFeaturesTest {
    private final RecordingCheckpoints checkpoints = new RecordingCheckpoints();
    private final EngineRegistry registry = EngineRegistry.of(
            List.of(new StubEngine("plain", Set.of()), new StubEngine("kv", Set.of()).offering(checkpoints)));
    private final ServiceProvisioner provisioner = new ServiceProvisioner(
            new FakeContainerRuntime(), ProvisionSettings.defaults("inst-a"), SecretSource.secure(), Clock.systemUTC());
    private final SandboxManager manager = new SandboxManager(registry, provisioner, Clock.systemUTC());
    private final SandboxData data = new SandboxData(manager, new InMemorySettingsStore(), Clock.systemUTC());

    @AfterEach
    void close() {
        manager.close();
    }

    @Test
    void aCheckpointAndARewindGoToTheServiceWhoseEngineOffersThem() throws Exception {
        Map<String, ServiceInstance> services = Map.of("plain", instance("plain"), "kv", instance("kv"));

        DataOutcome checkpoint = data.runNamed("sbx_1", SandboxData.CHECKPOINT, "before", id -> Optional.of(services));
        DataOutcome rewind = data.runNamed("sbx_1", SandboxData.REWIND, "before", id -> Optional.of(services));

        assertThat(checkpoint)
                .isInstanceOfSatisfying(
                        DataOutcome.Done.class,
                        d -> assertThat(d.evidence())
                                .containsEntry("name", "before")
                                .containsEntry("checkpoint_bytes", 42L)
                                .containsEntry("sessions_closed", 1));
        assertThat(rewind)
                .isInstanceOfSatisfying(
                        DataOutcome.Done.class,
                        d -> assertThat(d.evidence())
                                .containsEntry("name", "before")
                                .containsEntry("database_bytes", 42L));
        assertThat(checkpoints.calls).containsExactly("checkpoint before in kv_db", "rewind before in kv_db");
    }

    @Test
    void aRewindToACheckpointTheEngineDoesNotHaveIsRefusedWithItsMessage() throws Exception {
        Map<String, ServiceInstance> services = Map.of("kv", instance("kv"));

        DataOutcome outcome = data.runNamed("sbx_1", SandboxData.REWIND, "nope", id -> Optional.of(services));

        assertThat(outcome).isEqualTo(new DataOutcome.Refused("no checkpoint 'nope' in this sandbox; there are: none"));
    }

    @Test
    void aSandboxWithoutSuchAServiceIsRefusedNamingTheEnginesThatOfferIt() throws Exception {
        Map<String, ServiceInstance> services = Map.of("plain", instance("plain"));

        DataOutcome checkpoint = data.runNamed("sbx_1", SandboxData.CHECKPOINT, "before", id -> Optional.of(services));
        DataOutcome snapshot =
                data.runNamed("sbx_1", SandboxData.SNAPSHOT_SCHEMA, "before", id -> Optional.of(services));

        assertThat(checkpoint)
                .isEqualTo(new DataOutcome.Refused(
                        "the sandbox has no kv service; checkpoint_sandbox works on Kv (opt the project into kv)"));
        assertThat(snapshot).isEqualTo(new DataOutcome.Refused("no engine of this server offers snapshot_schema"));
        assertThat(checkpoints.calls).isEmpty();
    }

    @Test
    void aDatabaseFailureIsRetryableAndCarriesNoPassword() throws Exception {
        ServiceInstance kv = instance("kv");
        checkpoints.failWith = new SQLException(
                "password authentication failed: " + kv.credentials().password());

        DataOutcome outcome =
                data.runNamed("sbx_1", SandboxData.CHECKPOINT, "before", id -> Optional.of(Map.of("kv", kv)));

        assertThat(outcome).isInstanceOfSatisfying(DataOutcome.Failed.class, f -> {
            assertThat(f.retryable()).isTrue();
            assertThat(f.reason())
                    .contains("<redacted>")
                    .doesNotContain(kv.credentials().password());
        });
    }

    private static ServiceInstance instance(String service) {
        return new ServiceInstance(
                service,
                "img:1",
                "c-" + service,
                "roboco-sbx-" + service,
                new Endpoint("127.0.0.1", 1),
                new Credentials(
                        "admin", "admin-pw-" + service, service + "_agent", "agent-pw-" + service, service + "_db"),
                Set.of(),
                Instant.EPOCH);
    }

    /** Checkpoints kept by name in memory, every call recorded as "what name in database". */
    private static final class RecordingCheckpoints implements Checkpoints {
        final List<String> calls = new CopyOnWriteArrayList<>();
        final Set<String> names = ConcurrentHashMap.newKeySet();
        volatile SQLException failWith;

        @Override
        public Result checkpoint(ProbeTarget target, String name) throws SQLException {
            if (failWith != null) {
                throw failWith;
            }
            calls.add("checkpoint " + name + " in " + target.credentials().database());
            names.add(name);
            return new Result(name, 42, 1, 3);
        }

        @Override
        public Result rewind(ProbeTarget target, String name) {
            if (!names.contains(name)) {
                throw new UnknownNameException("no checkpoint '" + name + "' in this sandbox; there are: none");
            }
            calls.add("rewind " + name + " in " + target.credentials().database());
            return new Result(name, 42, 0, 3);
        }

        @Override
        public List<Checkpoint> list(ProbeTarget target) {
            return names.stream().sorted().map(n -> new Checkpoint(n, 42)).toList();
        }
    }
}
