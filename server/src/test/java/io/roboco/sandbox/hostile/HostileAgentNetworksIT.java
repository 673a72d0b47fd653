package io.roboco.sandbox.hostile;

import static org.assertj.core.api.Assertions.assertThat;

import io.roboco.sandbox.it.Fixtures;
import io.roboco.sandbox.it.InProcessServer;
import io.roboco.sandbox.it.LogCapture;
import io.roboco.sandbox.provision.LocalImages;
import io.roboco.sandbox.provision.OwnerNetworks;
import io.roboco.sandbox.provision.SandboxLabels;
import io.roboco.sandbox.testkit.ApiClient;
import io.roboco.sandbox.testkit.InProcessServerExtension;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * #18 item 9 in network mode, with an attacker who is another agent: its container sits on the agents' shared Docker
 * network (made by the test, as an orchestrator makes it), with Docker's default capabilities (raw sockets included), and
 * it holds a sandbox of its own. It tries to reach another agent's Postgres and Redis by container name with that agent's
 * real credentials (as if they had leaked), at every address the victim's sandbox containers have, from its own container
 * and from inside its own sandbox containers; and it listens with a raw socket on the shared network while the victim's
 * sandbox is made and its extensions activated (the admin work). Nothing connects, no password and no admin command
 * crosses the shared network, while the victim's own container reaches its sandbox by name. The victim's network goes
 * with its sandbox; another project's agent is unharmed throughout.
 */
class HostileAgentNetworksIT {
    private static final RecordingSecrets SECRETS = new RecordingSecrets();
    private static final String RUN = UUID.randomUUID().toString().substring(0, 6);
    /** The agents' shared network, as an orchestrator makes it. */
    private static final String SHARED = "roboco-it-agents-" + RUN;
    /** How the orchestrator names agents' containers; the server attaches each to its agent's network. */
    private static final String AGENT_CONTAINER = "roboco-it-" + RUN + "-{slug}";

    private static final List<AgentContainer> AGENTS = new ArrayList<>();

    @RegisterExtension
    static final InProcessServerExtension<InProcessServer> SERVER =
            InProcessServerExtension.startedBeforeAll(stateDir -> {
                LocalImages.docker("network", "create", "--label", "roboco.sandbox.test=network", SHARED);
                return InProcessServer.withSettings(
                        stateDir,
                        Map.of(
                                "ROBOCO_SANDBOX_NETWORK",
                                "network:" + SHARED,
                                "ROBOCO_SANDBOX_AGENT_CONTAINER",
                                AGENT_CONTAINER),
                        SECRETS);
            });

    @AfterAll
    static void removeTheAgentsAndTheirNetwork() {
        for (AgentContainer agent : AGENTS) {
            Shell.run(Duration.ofSeconds(30), "docker", "rm", "-f", agent.name);
        }
        Shell.run(Duration.ofSeconds(30), "docker", "network", "rm", SHARED);
    }

    @Test
    @Timeout(value = 300, unit = TimeUnit.SECONDS)
    void anotherAgentsSandboxIsOutOfReachAndAdminWorkStaysOffTheSharedNetwork() throws Exception {
        try (LogCapture logs = new LogCapture()) {
            attack();
            String all = logs.logged() + logs.printed();
            assertThat(all).as("no OutOfMemoryError").doesNotContain("OutOfMemoryError");
            assertThat(SECRETS.firstIn(all))
                    .as("no issued password in the server's logs or output")
                    .isNull();
        }
    }

    private static AgentContainer agent(String slug) {
        AgentContainer agent = AgentContainer.start(AGENT_CONTAINER.replace("{slug}", slug), SHARED);
        AGENTS.add(agent);
        return agent;
    }

    private void attack() throws Exception {
        ApiClient api = SERVER.api();
        String instance = SERVER.server().instanceId();
        AgentContainer bystanderBox = agent("netz-bystander");
        Bystander bystander = Bystander.standing(api, "netz-bystander", bystanderBox::use);

        AgentContainer attacker = agent("netz-attacker");
        api.working("netz-attacker", "netz-attack", "[\"postgres\",\"redis\"]");
        ApiClient.Reply own = api.requestSandboxRetrying("netz-attacker", 3);
        assertThat(own.ok())
                .as("the attacker has a sandbox of its own: %s", own)
                .isTrue();
        own.grants()
                .forEach((service, env) -> assertThat(attacker.use(service, env))
                        .as("the attacker reaches its own %s by name (the network works for its owner)", service)
                        .isNull());

        AgentContainer victimBox = agent("netz-victim");
        api.working("netz-victim", "netz-victims", "[\"postgres\",\"redis\"]");
        ApiClient.Reply project = api.admin(
                "PUT",
                "/api/projects/netz-victims",
                "{\"name\":\"netz-victims\",\"sandbox_services\":[\"postgres\",\"redis\"],"
                        + "\"sandbox_extensions\":{\"postgres\":[\"pg_trgm\"],\"redis\":[\"search\"]}}");
        assertThat(project.status())
                .as("victims' project with extensions: %s", project)
                .isEqualTo(200);

        // The attacker listens on the shared network while the victim's sandbox is made and its admin work runs.
        Sniffer sniffer = Sniffer.listen(attacker);
        ApiClient.Reply victim = api.requestSandboxRetrying("netz-victim", 3);
        boolean control =
                attacker.connect(victimBox.ip(SHARED), 9); // a frame of its own, so the sniffer sees something
        Sniffer.Capture capture = sniffer.stop();
        assertThat(victim.ok())
                .as("the victim's sandbox was made while the attacker listened: %s", victim)
                .isTrue();
        Map<String, Map<String, String>> grants = victim.grants();
        grants.forEach((service, env) -> assertThat(victimBox.use(service, env))
                .as("the victim reaches its own %s by name", service)
                .isNull());
        assertThat(control)
                .as("nothing listens on port 9 of the victim's container")
                .isFalse();
        assertThat(capture.frames())
                .as("the sniffer saw the shared network's frames (its own at least)")
                .isPositive();
        assertThat(SECRETS.firstIn(capture.text()))
                .as("no password crossed the shared network")
                .isNull();
        for (String marker :
                List.of("SCRAM-SHA-256", "CREATE ROLE", "SETUSER", "AUTH", "EXTENSION", "MODULE", "roboco_admin")) {
            assertThat(capture.text())
                    .as("no admin work (%s) crossed the shared network", marker)
                    .doesNotContain(marker);
        }

        int attempts = 0;
        int refused = 0;
        List<String> reached = new ArrayList<>();
        List<String> attackersSandboxes = Fixtures.containersOf(instance, "netz-attacker");
        List<String> victimsSandboxes = Fixtures.containersOf(instance, "netz-victim");
        assertThat(victimsSandboxes).as("the victim's Postgres and Redis").hasSize(2);
        String victimNetwork = ownerNetwork(instance, "netz-victim");
        for (String container : victimsSandboxes) {
            Map<String, String> ips = ips(container);
            assertThat(ips.keySet())
                    .as("the victim's %s is on its owner's network and the back network, not the shared one", container)
                    .containsExactlyInAnyOrder(victimNetwork, backNetwork(instance));
            String service = label(container, SandboxLabels.SERVICE);
            int port = service.equals("postgres") ? 5432 : 6379;
            String name = grants.get(service)
                    .get(service.equals("postgres") ? "ROBOCO_TEST_DB_HOST" : "ROBOCO_TEST_REDIS_HOST");

            attempts++;
            if (attacker.use(service, grants.get(service)) == null) {
                reached.add("attacker's container -> " + name + " with the victim's credentials");
            } else {
                refused++;
            }
            for (String ip : ips.values()) {
                attempts++;
                if (attacker.connect(ip, port)) {
                    reached.add("attacker's container -> " + ip + ":" + port);
                } else {
                    refused++;
                }
                for (String from : attackersSandboxes) {
                    attempts++;
                    if (AgentContainer.connectFrom(from, ip, port)) {
                        reached.add(
                                "attacker's sandbox " + label(from, SandboxLabels.SERVICE) + " -> " + ip + ":" + port);
                    } else {
                        refused++;
                    }
                }
            }
        }
        assertThat(reached)
                .as("nothing of the attacker's reached the victim's sandboxes")
                .isEmpty();
        List<String> onShared = attached(SHARED);
        assertThat(onShared)
                .as("only the agents' containers are on the shared network")
                .hasSize(AGENTS.size());
        assertThat(onShared.stream()
                        .filter(c -> !label(c, SandboxLabels.SANDBOX).isEmpty()))
                .as("no sandbox container is on the shared network")
                .isEmpty();

        ApiClient.Reply done = api.verb("netz-victim", "i_am_done", "{}");
        assertThat(done.ok()).as("the victim's engagement ends: %s", done).isTrue();
        assertThat(Shell.run(AgentContainer.MOVE, "docker", "network", "inspect", victimNetwork)
                        .exit())
                .as("the victim's network %s went with its sandbox (its agent's container detached)", victimNetwork)
                .isNotZero();
        assertThat(victimBox.ip(SHARED))
                .as("the victim's container itself stays on the shared network")
                .isNotBlank();

        bystander.assertUnharmed();
        boolean healthy = Bystander.healthy(api);
        Bystander.figure(
                "network-cross-agent",
                attempts,
                refused,
                healthy,
                "frames_sniffed=" + capture.frames() + " bytes_sniffed=" + capture.bytes()
                        + " passwords_seen=0 admin_commands_seen=0 sandboxes_on_shared_network=0"
                        + " victim_network_removed_on_release=true");
    }

    private static String ownerNetwork(String instance, String owner) {
        return LocalImages.docker(
                        "network",
                        "ls",
                        "--format",
                        "{{.Name}}",
                        "--filter",
                        "label=" + SandboxLabels.INSTANCE + "=" + instance,
                        "--filter",
                        "label=" + SandboxLabels.AGENT + "=" + owner,
                        "--filter",
                        "label=" + OwnerNetworks.ROLE + "=" + OwnerNetworks.OWNER)
                .strip();
    }

    private static String backNetwork(String instance) {
        return LocalImages.docker(
                        "network",
                        "ls",
                        "--format",
                        "{{.Name}}",
                        "--filter",
                        "label=" + SandboxLabels.INSTANCE + "=" + instance,
                        "--filter",
                        "label=" + OwnerNetworks.ROLE + "=" + OwnerNetworks.BACK)
                .strip();
    }

    /** A container's address on each network it is on. */
    private static Map<String, String> ips(String container) {
        String out = LocalImages.docker(
                        "inspect",
                        "-f",
                        "{{range $n, $e := .NetworkSettings.Networks}}{{$n}} {{$e.IPAddress}}\n{{end}}",
                        container)
                .strip();
        Map<String, String> ips = new LinkedHashMap<>();
        for (String line : out.split("\n")) {
            String[] parts = line.strip().split(" ");
            if (parts.length == 2) {
                ips.put(parts[0], parts[1]);
            }
        }
        return ips;
    }

    private static String label(String container, String key) {
        return LocalImages.docker("inspect", "-f", "{{index .Config.Labels \"" + key + "\"}}", container)
                .strip();
    }

    /** Ids of the containers attached to a network. */
    private static List<String> attached(String network) {
        String out = LocalImages.docker(
                        "network", "inspect", "-f", "{{range $id, $c := .Containers}}{{$id}} {{end}}", network)
                .strip();
        return out.isEmpty() ? List.of() : Arrays.asList(out.split("\\s+"));
    }
}
