package io.roboco.sandbox.security;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.roboco.sandbox.it.Fixtures;
import io.roboco.sandbox.it.InProcessServer;
import io.roboco.sandbox.provision.LocalImages;
import io.roboco.sandbox.runtime.RunRequest;
import io.roboco.sandbox.testkit.ApiClient;
import io.roboco.sandbox.testkit.InProcessServerExtension;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Every sandbox container the server starts (postgres, redis, mongo stand-in) shows, in
 * {@code docker inspect}: capabilities all dropped but the entrypoint's few, tmpfs data dir, memory /
 * CPU / pids caps, every ownership label, no-new-privileges, not privileged, no bind mount or
 * volume at all (so no Docker socket), no restart policy.
 */
class ContainerHardeningIT {
    private static final ObjectMapper MAPPER = new ObjectMapper();
    private static final Map<String, String> DATA_DIRS =
            Map.of("postgres", "/var/lib/postgresql/data", "redis", "/data", "mongo", "/data/db");

    @RegisterExtension
    static final InProcessServerExtension<InProcessServer> SERVER = InProcessServerExtension.startedBeforeAll(
            stateDir -> new InProcessServer(stateDir, "1h", "2m", "30s", null));

    @Test
    @Timeout(value = 180, unit = TimeUnit.SECONDS)
    void everySandboxContainerIsLockedDown() throws Exception {
        ApiClient api = SERVER.api();
        for (String agent : List.of("hard-a", "hard-b")) {
            api.working(agent, "hard", "[\"postgres\",\"redis\",\"mongo\"]");
            ApiClient.Reply r = api.requestSandboxRetrying(agent, 3);
            assertThat(r.ok()).as("%s", r).isTrue();
        }
        List<String> ids = Fixtures.containersOf(SERVER.server().instanceId());
        assertThat(ids).hasSize(6);
        List<String> violations = new ArrayList<>();
        for (String id : ids) {
            JsonNode c = MAPPER.readTree(LocalImages.docker("inspect", id)).get(0);
            violations.addAll(check(c));
        }
        Fixtures.figure("ContainerHardeningIT containers inspected: " + ids.size() + ", hardening violations: "
                + violations.size());
        assertThat(violations).isEmpty();
    }

    private static List<String> check(JsonNode c) {
        List<String> bad = new ArrayList<>();
        String name = c.path("Name").asText();
        JsonNode host = c.path("HostConfig");
        JsonNode labels = c.path("Config").path("Labels");
        String service = labels.path("roboco.sandbox.service").asText();
        for (String label : List.of(
                "roboco.sandbox",
                "roboco.sandbox.agent",
                "roboco.sandbox.service",
                "roboco.sandbox.project",
                "roboco.sandbox.instance",
                "roboco.sandbox.created")) {
            if (labels.path(label).asText().isEmpty()) {
                bad.add(name + ": label " + label + " missing");
            }
        }
        if (!labels.path("roboco.sandbox.instance")
                .asText()
                .equals(SERVER.server().instanceId())) {
            bad.add(name + ": wrong instance label");
        }
        if (!texts(host.path("CapDrop")).contains("ALL")) {
            bad.add(name + ": CapDrop is " + host.path("CapDrop") + ", not ALL");
        }
        Set<String> added = new HashSet<>();
        texts(host.path("CapAdd")).forEach(cap -> added.add(cap.replaceFirst("^CAP_", "")));
        if (!RunRequest.ENTRYPOINT_CAPABILITIES.containsAll(added)) {
            bad.add(name + ": CapAdd " + added + " beyond " + RunRequest.ENTRYPOINT_CAPABILITIES);
        }
        if (texts(host.path("SecurityOpt")).stream()
                .noneMatch(o -> o.equals("no-new-privileges:true") || o.equals("no-new-privileges"))) {
            bad.add(name + ": no no-new-privileges in " + host.path("SecurityOpt"));
        }
        if (host.path("Privileged").asBoolean(true)) {
            bad.add(name + ": privileged");
        }
        if (!host.path("Tmpfs").has(DATA_DIRS.get(service))) {
            bad.add(name + ": data dir " + DATA_DIRS.get(service) + " not on tmpfs: " + host.path("Tmpfs"));
        }
        if (host.path("Memory").asLong() != 512L * 1024 * 1024
                || host.path("MemorySwap").asLong() != 512L * 1024 * 1024) {
            bad.add(name + ": memory " + host.path("Memory") + " / swap " + host.path("MemorySwap")
                    + ", not 512 MB without swap");
        }
        if (host.path("NanoCpus").asLong() != 1_000_000_000L) {
            bad.add(name + ": NanoCpus " + host.path("NanoCpus"));
        }
        if (host.path("PidsLimit").asLong() <= 0) {
            bad.add(name + ": no pids limit");
        }
        if (!texts(host.path("Binds")).isEmpty()) {
            bad.add(name + ": binds " + host.path("Binds"));
        }
        for (JsonNode mount : c.path("Mounts")) {
            bad.add(name + ": mount " + mount.path("Type").asText() + " "
                    + mount.path("Source").asText() + " -> "
                    + mount.path("Destination").asText());
        }
        if (c.toString().contains("docker.sock")) {
            bad.add(name + ": mentions docker.sock");
        }
        if (!"no".equals(host.path("RestartPolicy").path("Name").asText("no"))
                && !host.path("RestartPolicy").path("Name").asText().isEmpty()) {
            bad.add(name + ": restart policy " + host.path("RestartPolicy"));
        }
        if (!host.path("PidMode").asText().isEmpty()
                || !host.path("IpcMode").asText("private").matches("private|shareable|")) {
            bad.add(name + ": shares a host namespace (pid " + host.path("PidMode") + ", ipc " + host.path("IpcMode")
                    + ")");
        }
        if (!texts(host.path("Devices")).isEmpty()) {
            bad.add(name + ": devices " + host.path("Devices"));
        }
        return bad;
    }

    private static List<String> texts(JsonNode array) {
        List<String> out = new ArrayList<>();
        if (array != null && array.isArray()) {
            array.forEach(n -> out.add(n.isTextual() ? n.asText() : n.toString()));
        }
        return out;
    }
}
