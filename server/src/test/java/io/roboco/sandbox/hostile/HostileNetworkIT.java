package io.roboco.sandbox.hostile;

import static org.assertj.core.api.Assertions.assertThat;

import io.roboco.sandbox.it.InProcessServer;
import io.roboco.sandbox.it.LogCapture;
import io.roboco.sandbox.provision.SandboxLabels;
import io.roboco.sandbox.testkit.ApiClient;
import io.roboco.sandbox.testkit.InProcessServerExtension;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * #18 item 9, with an attacker who is another local user of the host (host mode): it listens first on the port a
 * sandbox is about to bind, answering as a server that wants the client's password; and it reads every process's
 * arguments while sandboxes start. Neither gets a secret: readiness and admin work talk to the container's own
 * server (Redis through an exec over its unix socket; Postgres and Mongo only with SCRAM, which the squatter cannot
 * complete), and no password is ever an argument. The agent whose port was taken is told to retry, and gets its
 * sandbox once the squatter is gone; another project's agent is unharmed throughout.
 */
class HostileNetworkIT {
    private static final RecordingSecrets SECRETS = new RecordingSecrets();

    @RegisterExtension
    static final InProcessServerExtension<InProcessServer> SERVER = InProcessServerExtension.startedBeforeAll(
            stateDir -> new InProcessServer(stateDir, "1h", "2m", "30s", SECRETS));

    @Test
    @Timeout(value = 180, unit = TimeUnit.SECONDS)
    void aPortSquatterGetsNoSecretAndTheAgentIsToldToRetry() throws Exception {
        try (LogCapture logs = new LogCapture()) {
            squatEveryStartOfTheVictims();
            assertNothingLeakedOrExhausted(logs);
        }
    }

    private void squatEveryStartOfTheVictims() throws Exception {
        ApiClient api = SERVER.api();
        Bystander bystander = Bystander.standing(api, "net-bystander");
        AtomicBoolean squatting = new AtomicBoolean(true);
        List<PortSquatter> squatters = new CopyOnWriteArrayList<>();
        SERVER.server().runtime.beforeEveryStart(request -> {
            String agent = request.labels().getOrDefault(SandboxLabels.AGENT, "");
            if (squatting.get() && agent.startsWith("net-victim-")) {
                try {
                    squatters.add(new PortSquatter(
                            request.labels().get(SandboxLabels.SERVICE),
                            request.spec().port()));
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            }
        });

        int attempts = 0;
        int refused = 0;
        List<String> services = List.of("postgres", "redis", "mongo");
        for (String service : services) {
            String victim = "net-victim-" + service;
            api.working(victim, "net-squat-" + service, "[\"" + service + "\"]");
            ApiClient.Reply r = api.requestSandbox(victim);
            attempts++;
            assertThat(r.ok())
                    .as("%s on a squatted port is not handed out: %s", service, r)
                    .isFalse();
            assertThat(r.json())
                    .as("a squatted port is a provisioning failure to retry: %s", r)
                    .containsEntry("error", "invalid_state")
                    .containsEntry("retryable", true);
            assertThat(r.body()).as("the answer names no secret").doesNotContain(SECRETS.passwords);
            assertThat(SERVER.server()
                            .runtime
                            .list(SandboxLabels.ofAgent(SERVER.server().instanceId(), victim)))
                    .as("every container that could not bind its port was removed")
                    .isEmpty();
            refused++;
        }
        squatting.set(false);
        for (PortSquatter squatter : squatters) {
            squatter.close();
        }

        assertThat(squatters)
                .as("every start of the victims met a squatter")
                .hasSizeGreaterThanOrEqualTo(services.size());
        int contacted = 0;
        for (PortSquatter squatter : squatters) {
            assertThat(SECRETS.firstIn(squatter.received()))
                    .as("%s squatter on %d got no password", squatter.service, squatter.port)
                    .isNull();
            if (squatter.service.equals("redis")) {
                assertThat(squatter.connections())
                        .as("nothing speaks to a Redis port before the container's server is proven")
                        .isZero();
            }
            contacted += squatter.connections() > 0 ? 1 : 0;
        }
        assertThat(squatters.stream()
                        .filter(s -> s.service.equals("postgres"))
                        .mapToInt(PortSquatter::connections)
                        .sum())
                .as("the Postgres readiness probe did reach the squatter (the attack was real) and sent it no password")
                .isPositive();

        for (String service : services) {
            ApiClient.Reply again = api.requestSandboxRetrying("net-victim-" + service, 3);
            assertThat(again.ok())
                    .as("with the squatter gone, %s is handed out: %s", service, again)
                    .isTrue();
        }
        bystander.assertUnharmed();
        boolean healthy = Bystander.healthy(api);
        Bystander.figure(
                "network-port-squatter",
                attempts,
                refused,
                healthy,
                "squatted_starts=" + squatters.size() + " squatters_contacted=" + contacted + " secrets_received=0");
    }

    @Test
    @Timeout(value = 180, unit = TimeUnit.SECONDS)
    void noPasswordIsInAnyProcessArgumentsWhileSandboxesStart() throws Exception {
        try (LogCapture logs = new LogCapture()) {
            scanProcessArgumentsWhileASandboxStarts();
            assertNothingLeakedOrExhausted(logs);
        }
    }

    /** The server logged (at DEBUG, every logger) and printed no issued password and no {@code OutOfMemoryError}. */
    private static void assertNothingLeakedOrExhausted(LogCapture logs) {
        String all = logs.logged() + logs.printed();
        assertThat(all).as("no OutOfMemoryError").doesNotContain("OutOfMemoryError");
        assertThat(SECRETS.firstIn(all))
                .as("no issued password in the server's logs or output")
                .isNull();
    }

    private void scanProcessArgumentsWhileASandboxStarts() throws Exception {
        ApiClient api = SERVER.api();
        Bystander bystander = Bystander.standing(api, "net-ps-bystander");
        String agent = "net-ps-agent";
        api.working(agent, "net-ps", "[\"postgres\",\"redis\",\"mongo\"]");
        ApiClient.Reply project = api.admin(
                "PUT",
                "/api/projects/net-ps",
                "{\"name\":\"net-ps\",\"sandbox_services\":"
                        + "[\"postgres\",\"redis\",\"mongo\"],\"sandbox_extensions\":{\"postgres\":[\"pg_trgm\"],\"redis\":[\"search\"]}}");
        assertThat(project.status()).as("project with extensions: %s", project).isEqualTo(200);

        AtomicBoolean done = new AtomicBoolean();
        CompletableFuture<ProcessScan> scan = CompletableFuture.supplyAsync(() -> ProcessScan.until(done));
        ApiClient.Reply r;
        try {
            r = api.requestSandboxRetrying(agent, 3);
        } finally {
            done.set(true);
        }
        ProcessScan seen = scan.get(60, TimeUnit.SECONDS);
        assertThat(r.ok()).as("the sandbox was made while the scan ran: %s", r).isTrue();

        assertThat(seen.leaks)
                .as("no process's arguments held a password (admin or agent)")
                .isEmpty();
        assertThat(seen.commands)
                .as("the scan saw the sandboxes' servers while they started")
                .anyMatch(c -> c.contains("redis-server"))
                .anyMatch(c -> c.startsWith("postgres"));
        bystander.assertUnharmed();
        Bystander.figure(
                "network-process-arguments",
                seen.cmdlinesRead,
                seen.cmdlinesRead - seen.leaks.size(),
                Bystander.healthy(api),
                "scans=" + seen.scans + " passwords_known=" + SECRETS.passwords.size() + " leaks=" + seen.leaks.size());
    }

    /** Every process's arguments read over and over from /proc, as any local user may, until told to stop. */
    private static final class ProcessScan {
        int scans;
        int cmdlinesRead;
        final List<String> leaks = new ArrayList<>();
        final Set<String> commands = new TreeSet<>();

        static ProcessScan until(AtomicBoolean done) {
            ProcessScan scan = new ProcessScan();
            boolean last = false;
            while (!last) {
                last = done.get(); // one full scan after the request finished
                scan.once();
            }
            return scan;
        }

        private void once() {
            scans++;
            try (DirectoryStream<Path> procs = Files.newDirectoryStream(
                    Path.of("/proc"), p -> p.getFileName().toString().matches("\\d+"))) {
                for (Path proc : procs) {
                    String cmdline;
                    try {
                        cmdline = new String(Files.readAllBytes(proc.resolve("cmdline")), StandardCharsets.UTF_8)
                                .replace('\0', ' ')
                                .strip();
                    } catch (IOException e) {
                        continue; // the process ended meanwhile
                    }
                    cmdlinesRead++;
                    if (cmdline.isEmpty()) {
                        continue;
                    }
                    String leaked = SECRETS.firstIn(cmdline);
                    if (leaked != null) {
                        leaks.add(proc.getFileName() + ": " + cmdline.replace(leaked, "<password>"));
                    }
                    String program = cmdline.split(" ", 2)[0];
                    commands.add(program.substring(program.lastIndexOf('/') + 1)
                            + (cmdline.contains("mongo-compat") ? " (mongo-compat)" : ""));
                }
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
    }
}
