package io.roboco.sandbox.provision;

import static org.assertj.core.api.Assertions.assertThat;

import io.roboco.sandbox.engine.ContainerSpec;
import io.roboco.sandbox.engine.SecretSource;
import io.roboco.sandbox.ledger.ContainerLedger;
import io.roboco.sandbox.runtime.Limits;
import io.roboco.sandbox.runtime.NetworkMode;
import io.roboco.sandbox.runtime.RunRequest;
import io.roboco.sandbox.testkit.FakeContainerRuntime;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The provisioner removes a container only when its labels say it is this instance's sandbox container. */
class RemovalLabelCheckTest {
    private static final String INSTANCE = "test-instance";
    private final FakeContainerRuntime runtime = new FakeContainerRuntime();
    private final ServiceProvisioner provisioner = new ServiceProvisioner(
            runtime, ProvisionSettings.defaults(INSTANCE), SecretSource.secure(), Clock.systemUTC());

    private String started(String name, Map<String, String> labels) {
        return runtime.start(new RunRequest(
                        name,
                        new ContainerSpec("stub/postgres:1", Map.of(), List.of(), "/data", 1),
                        labels,
                        Limits.sandboxDefaults(),
                        NetworkMode.host(),
                        Set.of()))
                .id();
    }

    @Test
    void removesThisInstancesSandboxContainer() {
        String ours = started("ours", SandboxLabels.forService(INSTANCE, "dev-1", "shop", "postgres", 0L));

        provisioner.removeQuietly(ours);

        assertThat(runtime.containerIds()).doesNotContain(ours);
    }

    @Test
    void leavesAContainerWithoutOurLabelsAnotherInstancesAndAnUnlabelledOne() {
        String unlabelled = started("someone-elses-app", Map.of());
        String otherInstance =
                started("other", SandboxLabels.forService("another-instance", "dev-1", "shop", "postgres", 0L));
        String notASandbox = started("lookalike", Map.of(SandboxLabels.INSTANCE, INSTANCE));
        provisioner.ledger().enter(unlabelled, ContainerLedger.Reason.HELD, "dev-1");

        for (String id : List.of(unlabelled, otherInstance, notASandbox)) {
            provisioner.removeQuietly(id);
        }

        assertThat(runtime.containerIds()).contains(unlabelled, otherInstance, notASandbox);
        assertThat(provisioner.ledger().owns(unlabelled))
                .as("struck from the ledger all the same")
                .isFalse();
    }

    @Test
    void aContainerAlreadyGoneIsSuccess() {
        provisioner.removeQuietly("no-such-container");
        assertThat(runtime.containerIds()).isEmpty();
    }
}
