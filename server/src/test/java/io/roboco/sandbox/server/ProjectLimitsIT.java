package io.roboco.sandbox.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.roboco.sandbox.it.Fixtures;
import io.roboco.sandbox.it.InProcessServer;
import io.roboco.sandbox.provision.LocalImages;
import io.roboco.sandbox.testkit.ApiClient;
import io.roboco.sandbox.testkit.InProcessServerExtension;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A project's {@code sandbox_limits} through the real server and Docker: a default Postgres sandbox cannot take
 * {@code pgbench -i -s 20} (its 256 MB data tmpfs fills: "could not extend file"); the same project with memory 1g,
 * data 512m and 2 CPUs (within the default maximums) gets a container with exactly those caps, says so in the
 * evidence's {@code limits}, and takes the load. A limit over the operator's maximum is refused, naming it.
 */
class ProjectLimitsIT {
    @RegisterExtension
    static final InProcessServerExtension<InProcessServer> SERVER = InProcessServerExtension.startedBeforeAll(
            stateDir -> new InProcessServer(stateDir, "1h", "2m", "30s", null));

    @Test
    @Timeout(value = 400, unit = TimeUnit.SECONDS)
    void aRaisedLimitWithinTheMaximumLetsABiggerWorkloadInAndOneOverItIsRefused() throws Exception {
        ApiClient api = SERVER.api();

        // Over the maximum: refused, naming the maximum and its setting; nothing saved.
        ApiClient.Reply over = api.admin(
                "PUT",
                "/api/projects/big",
                "{\"sandbox_services\":[\"postgres\"],\"sandbox_limits\":{\"postgres\":{\"memory\":\"8g\"}}}");
        assertThat(over.status()).isEqualTo(400);
        assertThat(over.body()).contains("over the operator's maximum 2g (ROBOCO_SANDBOX_MAX_MEMORY)");
        ApiClient.Reply overData = api.admin(
                "PUT",
                "/api/projects/big",
                "{\"sandbox_services\":[\"postgres\"],\"sandbox_limits\":{\"postgres\":{\"data_size\":\"600m\"}}}");
        assertThat(overData.status()).isEqualTo(400);
        assertThat(overData.body()).contains("must be below memory 512m");
        assertThat(api.admin("GET", "/api/projects/big", null).status()).isEqualTo(404);

        // Default limits: scale 20 does not fit.
        api.working("limits-small", "small", "[\"postgres\"]");
        ApiClient.Reply small = api.requestSandboxRetrying("limits-small", 3);
        assertThat(small.ok()).as("%s", small).isTrue();
        assertThat(limits(small))
                .containsEntry("memory", "512m")
                .containsEntry("data_size", "256m")
                .containsEntry("cpus", 1);
        Result smallLoad = pgbench(small.grants().get("postgres"), 20);
        assertThat(smallLoad.exit)
                .as("scale 20 in a default sandbox should not fit:\n%s", smallLoad.output)
                .isNotZero();
        assertThat(smallLoad.output).contains("could not extend file");

        // Raised within the maximums: the container has the caps, the evidence says so, the load fits.
        expect200(api.admin(
                "PUT",
                "/api/projects/big",
                "{\"name\":\"Big\",\"sandbox_services\":[\"postgres\"],"
                        + "\"sandbox_limits\":{\"postgres\":{\"memory\":\"1g\",\"data_size\":\"512m\",\"cpus\":2}}}"));
        assertThat(api.admin("GET", "/api/projects/big", null).body())
                .contains("\"sandbox_limits\":{\"postgres\":{\"memory\":\"1g\",\"data_size\":\"512m\",\"cpus\":2}}");
        expect200(api.orchestrator(
                "POST", "/api/agents/limits-big/spawn", "{\"role\":\"developer\",\"project\":\"big\"}"));
        assertThat(api.verb("limits-big", "give_me_work", "{\"project\":\"big\",\"task\":\"T-1\"}")
                        .ok())
                .isTrue();
        ApiClient.Reply big = api.requestSandboxRetrying("limits-big", 3);
        assertThat(big.ok()).as("%s", big).isTrue();
        assertThat(limits(big))
                .containsEntry("memory", "1g")
                .containsEntry("data_size", "512m")
                .containsEntry("cpus", 2);
        String port = big.grants().get("postgres").get("ROBOCO_TEST_DB_PORT");
        String container = LocalImages.docker(
                        "ps",
                        "-q",
                        "--filter",
                        "label=roboco.sandbox.agent=limits-big",
                        "--filter",
                        "label=roboco.sandbox.service=postgres")
                .strip();
        assertThat(LocalImages.docker(
                        "inspect",
                        "-f",
                        "{{.HostConfig.Memory}} {{.HostConfig.NanoCpus}} {{json .HostConfig.Tmpfs}}",
                        container))
                .contains((1L << 30) + " 2000000000 ")
                .contains("size=" + (512L << 20));
        Result bigLoad = pgbench(big.grants().get("postgres"), 20);
        assertThat(bigLoad.exit)
                .as("scale 20 with 1g / 512m (port %s):\n%s", port, bigLoad.output)
                .isZero();
        Fixtures.figure("ProjectLimitsIT pgbench -i -s 20: refused by a default sandbox (\"could not extend file\"), "
                + "fits with sandbox_limits memory 1g, data 512m, 2 CPUs; 8g refused naming the 2g maximum");
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> limits(ApiClient.Reply reply) {
        Map<String, Object> evidence = (Map<String, Object>) reply.json().get("evidence");
        List<Map<String, Object>> sandboxes = (List<Map<String, Object>>) evidence.get("sandboxes");
        return (Map<String, Object>) sandboxes.get(0).get("limits");
    }

    private static void expect200(ApiClient.Reply r) {
        assertThat(r.status()).as("%s", r).isEqualTo(200);
    }

    private record Result(int exit, String output) {}

    /** {@code pgbench -i -s SCALE} as the agent on 127.0.0.1, the password in the environment. */
    private static Result pgbench(Map<String, String> env, int scale) throws Exception {
        List<String> command = new ArrayList<>(List.of(
                "pgbench",
                "-i",
                "-s",
                Integer.toString(scale),
                "-h",
                "127.0.0.1",
                "-p",
                env.get("ROBOCO_TEST_DB_PORT"),
                "-U",
                env.get("ROBOCO_TEST_DB_USER"),
                env.get("ROBOCO_TEST_DB_NAME")));
        ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true);
        builder.environment().put("PGPASSWORD", env.get("ROBOCO_TEST_DB_PASSWORD"));
        Process process;
        try {
            process = builder.start();
        } catch (IOException e) {
            throw new IllegalStateException(
                    "pgbench is not installed (Debian postgresql-client; scripts/test.sh installs it)", e);
        }
        process.getOutputStream().close();
        CompletableFuture<String> out = CompletableFuture.supplyAsync(() -> {
            try (var in = process.getInputStream()) {
                ByteArrayOutputStream buffer = new ByteArrayOutputStream();
                in.transferTo(buffer);
                return buffer.toString();
            } catch (IOException e) {
                return "(unreadable: " + e.getMessage() + ")";
            }
        });
        if (!process.waitFor(240, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            throw new IllegalStateException("pgbench -i -s " + scale + " did not finish in 240 s");
        }
        return new Result(process.exitValue(), out.join());
    }
}
