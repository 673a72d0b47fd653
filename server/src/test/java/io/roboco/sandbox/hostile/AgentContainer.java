package io.roboco.sandbox.hostile;

import io.roboco.sandbox.provision.LocalImages;
import io.roboco.sandbox.testkit.Redact;
import java.time.Duration;
import java.util.Map;

/**
 * An agent's container as an orchestrator runs it: on the agents' shared network, Docker's default capabilities (raw
 * sockets included), {@code psql}, {@code redis-cli}, {@code bash} and {@code perl} at hand (the local Postgres image,
 * idle). Every move it makes is a {@code docker exec} bounded by a deadline; credentials reach its commands on stdin,
 * never in an argument.
 */
final class AgentContainer {
    static final Duration MOVE = Duration.ofSeconds(20);
    final String name;

    private AgentContainer(String name) {
        this.name = name;
    }

    static AgentContainer start(String name, String network) {
        LocalImages.docker(
                "run",
                "-d",
                "--name",
                name,
                "--label",
                "roboco.sandbox.test=network",
                "--network",
                network,
                "--entrypoint",
                "sleep",
                LocalImages.IMAGES.get("postgres"),
                "infinity");
        return new AgentContainer(name);
    }

    /** Logs in with one granted service's env as an agent would, by the host name it was given; null when it worked, else why not. */
    String use(String service, Map<String, String> env) {
        Shell r = switch (service) {
            case "postgres" ->
                exec(
                        env.get("ROBOCO_TEST_DB_URL"),
                        "sh",
                        "-c",
                        "read -r url; PGCONNECT_TIMEOUT=3 psql -X -A -t \"$url\" -c 'select 41 + 1'");
            case "redis" ->
                exec(
                        env.get("ROBOCO_TEST_REDIS_URL"),
                        "sh",
                        "-c",
                        "read -r url; timeout 5 redis-cli --no-auth-warning -u \"$url\" ping");
            default -> throw new IllegalArgumentException("no move for " + service);
        };
        String out = r.text().strip();
        boolean worked = r.ok() && (service.equals("postgres") ? out.equals("42") : out.equals("PONG"));
        return worked ? null : "exit " + r.exit() + ": " + Redact.passwords(out);
    }

    /** A TCP connect from this container to {@code host:port} (3 s at most): true when it was accepted. */
    boolean connect(String host, int port) {
        return connectFrom(name, host, port);
    }

    static boolean connectFrom(String container, String host, int port) {
        return Shell.run(
                        MOVE,
                        "docker",
                        "exec",
                        container,
                        "timeout",
                        "3",
                        "bash",
                        "-c",
                        "exec 3<>/dev/tcp/" + host + "/" + port)
                .ok();
    }

    /** This container's address on {@code network}. */
    String ip(String network) {
        return LocalImages.docker(
                        "inspect", "-f", "{{(index .NetworkSettings.Networks \"" + network + "\").IPAddress}}", name)
                .strip();
    }

    Shell exec(String stdin, String... command) {
        String[] full = new String[command.length + 4];
        full[0] = "docker";
        full[1] = "exec";
        full[2] = "-i";
        full[3] = name;
        System.arraycopy(command, 0, full, 4, command.length);
        return Shell.runFeeding(MOVE, stdin == null ? null : stdin + "\n", full);
    }
}
