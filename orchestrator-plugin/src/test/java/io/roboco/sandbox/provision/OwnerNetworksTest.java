package io.roboco.sandbox.provision;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import io.roboco.sandbox.engine.ContainerSpec;
import io.roboco.sandbox.engine.Endpoint;
import io.roboco.sandbox.engine.SecretSource;
import io.roboco.sandbox.runtime.Limits;
import io.roboco.sandbox.runtime.NetworkMode;
import io.roboco.sandbox.runtime.NetworkSpec;
import io.roboco.sandbox.runtime.RunRequest;
import io.roboco.sandbox.testkit.FakeContainerRuntime;
import io.roboco.sandbox.testkit.MutableClock;
import io.roboco.sandbox.testkit.StubEngine;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * Network mode: each owner's sandbox containers on an internal network of its own, every one also on the instance's
 * isolated back network with its port published for the plugin; the agent told the container name and the service's own
 * port; the owner's network gone with its last sandbox container, or swept by the janitor when left over.
 */
class OwnerNetworksTest {
    private static final String INSTANCE = "net-instance";
    private final MutableClock clock = new MutableClock(Instant.parse("2026-12-02T12:00:00Z"));
    private final FakeContainerRuntime runtime = new FakeContainerRuntime(clock);
    private final StubEngine engine = new StubEngine("postgres", Set.of());
    private final ProvisionSettings settings =
            ProvisionSettings.defaults(INSTANCE).withNetwork(new NetworkMode.Named("agents", "agent-{slug}"));
    private final ServiceProvisioner provisioner =
            new ServiceProvisioner(runtime, settings, SecretSource.secure(), clock);

    private ServiceInstance provision(String owner) throws ProvisionException {
        return provisioner.provision(new ServicePlan(engine, settings.choose(engine, null), Set.of()), owner, "shop");
    }

    @Test
    void aSandboxJoinsItsOwnersInternalNetworkAndTheIsolatedBackNetworkOnly() throws Exception {
        ServiceInstance sandbox = provision("dev-1");

        RunRequest request = runtime.request(sandbox.containerId()).orElseThrow();
        assertThat(request.network())
                .isEqualTo(
                        new NetworkMode.Isolated("agents-net-instance-sandboxes", "agents-net-instance-agent.dev-1"));
        NetworkSpec back = runtime.networkSpec("agents-net-instance-sandboxes").orElseThrow();
        NetworkSpec own = runtime.networkSpec("agents-net-instance-agent.dev-1").orElseThrow();
        assertThat(back.isolated())
                .as("sandboxes cannot reach one another on the back network")
                .isTrue();
        assertThat(back.internal()).isFalse();
        assertThat(own.internal())
                .as("an owner network never becomes the container's route, so the published port stays on the back")
                .isTrue();
        assertThat(own.labels())
                .containsEntry(SandboxLabels.SANDBOX, "1")
                .containsEntry(SandboxLabels.INSTANCE, INSTANCE)
                .containsEntry(SandboxLabels.AGENT, "dev-1")
                .containsEntry(OwnerNetworks.ROLE, OwnerNetworks.OWNER)
                .containsKey(SandboxLabels.CREATED);
        assertThat(runtime.inspect(sandbox.containerId()).orElseThrow().networks())
                .containsExactlyInAnyOrder("agents-net-instance-sandboxes", "agents-net-instance-agent.dev-1");
    }

    @Test
    void thePluginReachesThePublishedLoopbackPortAndTheAgentIsToldTheContainerName() throws Exception {
        ServiceInstance sandbox = provision("dev-1");

        assertThat(sandbox.endpoint().host()).isEqualTo("127.0.0.1");
        assertThat(sandbox.endpoint().port()).isEqualTo(runtime.publishedPort(sandbox.containerId()));
        assertThat(sandbox.agentEndpoint()).isEqualTo(new Endpoint(sandbox.containerName(), engine.defaultPort()));
        assertThat(engine.env(sandbox.agentEndpoint(), sandbox.credentials()))
                .containsEntry("STUB_POSTGRES_HOST", sandbox.containerName())
                .containsEntry("STUB_POSTGRES_PORT", "1000");
    }

    @Test
    void differentOwnersGetDifferentNetworksAndAJobHasOneOfItsOwn() throws Exception {
        ServiceInstance a = provision("dev-1");
        ServiceInstance b = provision("dev-2");
        ServiceInstance job = provision("job:nightly");

        assertThat(runtime.inspect(a.containerId()).orElseThrow().networks())
                .doesNotContain("agents-net-instance-agent.dev-2");
        assertThat(runtime.inspect(b.containerId()).orElseThrow().networks())
                .contains("agents-net-instance-agent.dev-2")
                .doesNotContain("agents-net-instance-agent.dev-1");
        assertThat(runtime.inspect(job.containerId()).orElseThrow().networks())
                .contains("agents-net-instance-job.nightly");
    }

    @Test
    void theAgentsContainerIsAttachedWhenItExists() throws Exception {
        String agentBox = startForeign("agent-dev-1");

        provision("dev-1");
        provision("dev-2"); // its container does not exist: nothing attached, the sandbox still made

        assertThat(runtime.inspectNetwork("agents-net-instance-agent.dev-1")
                        .orElseThrow()
                        .containers())
                .contains(agentBox);
        assertThat(runtime.inspectNetwork("agents-net-instance-agent.dev-2")
                        .orElseThrow()
                        .containers())
                .hasSize(1);
    }

    @Test
    void theOwnersNetworkGoesWithItsLastSandboxContainerAndTheAgentsContainerIsDisconnected() throws Exception {
        String agentBox = startForeign("agent-dev-1");
        ServiceInstance first = provision("dev-1");
        ServiceInstance second = provision("dev-1");
        ServiceInstance other = provision("dev-2");

        provisioner.removeQuietly(first.containerId());
        assertThat(runtime.inspectNetwork("agents-net-instance-agent.dev-1"))
                .as("kept while a sandbox container is on it")
                .isPresent();

        provisioner.removeQuietly(second.containerId());
        assertThat(runtime.inspectNetwork("agents-net-instance-agent.dev-1"))
                .as("gone with the last one")
                .isEmpty();
        assertThat(runtime.inspect(agentBox))
                .as("the agent's own container is left running")
                .isPresent();
        assertThat(runtime.inspectNetwork("agents-net-instance-agent.dev-2"))
                .as("another owner's network is untouched")
                .isPresent();
        assertThat(runtime.inspect(other.containerId()).orElseThrow().networks())
                .contains("agents-net-instance-agent.dev-2");
    }

    @Test
    void theJanitorSweepsAnOwnerNetworkLeftEmptyOnceItIsOlderThanTheGrace() throws Exception {
        ServiceInstance kept = provision("dev-2");
        runtime.ensureNetwork(new NetworkSpec(
                "agents-net-instance-agent.dev-1",
                Map.of(
                        SandboxLabels.SANDBOX,
                        "1",
                        SandboxLabels.INSTANCE,
                        INSTANCE,
                        SandboxLabels.AGENT,
                        "dev-1",
                        OwnerNetworks.ROLE,
                        OwnerNetworks.OWNER,
                        SandboxLabels.CREATED,
                        Long.toString(clock.instant().getEpochSecond())),
                true,
                false));
        runtime.ensureNetwork(new NetworkSpec("someone-elses", Map.of(), false, false));

        assertThat(OwnerNetworks.sweep(runtime, INSTANCE, Duration.ofMinutes(2), clock.instant()))
                .as("inside the grace window: a container may be about to join")
                .isEmpty();
        clock.advance(Duration.ofMinutes(3));
        assertThat(OwnerNetworks.sweep(runtime, INSTANCE, Duration.ofMinutes(2), clock.instant()))
                .containsExactly("agents-net-instance-agent.dev-1");
        assertThat(runtime.inspectNetwork("agents-net-instance-agent.dev-2"))
                .as("a network with a sandbox on it stays")
                .isPresent();
        assertThat(runtime.inspectNetwork("someone-elses"))
                .as("a network without our labels is never touched")
                .isPresent();
        assertThat(runtime.inspect(kept.containerId())).isPresent();
    }

    @Test
    void aNetworkOfThatNameThatIsNotOursIsNeverJoined() {
        runtime.ensureNetwork(new NetworkSpec("agents-net-instance-agent.dev-1", Map.of(), true, false));

        assertThat(catchThrowable(() -> provision("dev-1")))
                .isInstanceOf(ProvisionException.class)
                .hasMessageContaining("was not made by this instance");
        assertThat(runtime.containerIds()).isEmpty();
    }

    @Test
    void hostModeMakesNoNetwork() throws Exception {
        ServiceProvisioner host =
                new ServiceProvisioner(runtime, ProvisionSettings.defaults(INSTANCE), SecretSource.secure(), clock);
        ServiceInstance sandbox =
                host.provision(new ServicePlan(engine, settings.choose(engine, null), Set.of()), "dev-1", "shop");

        assertThat(runtime.networks(Map.of())).isEmpty();
        assertThat(sandbox.agentEndpoint()).isEqualTo(sandbox.endpoint());
        assertThat(sandbox.endpoint().host()).isEqualTo("127.0.0.1");
    }

    private String startForeign(String name) {
        return runtime.start(new RunRequest(
                        name,
                        new ContainerSpec("agent:1", Map.of(), List.of(), "/work", 1),
                        Map.of(),
                        Limits.sandboxDefaults(),
                        NetworkMode.host(),
                        Set.of()))
                .id();
    }
}
