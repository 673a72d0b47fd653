package io.roboco.sandbox.kubernetes;

import io.roboco.sandbox.engine.ExecResult;
import io.roboco.sandbox.provision.LocalImages;
import io.roboco.sandbox.testkit.kubernetes.TestCluster;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The standard clients against a sandbox's pod address, as an agent's pod would use them: {@code psql} and
 * {@code redis-cli} from a throwaway container on the test cluster's network (the local images carry both), pymongo
 * (Debian's python3-pymongo, {@code /usr/bin/python3}, which no local image has) from the host, that network's
 * gateway. URLs go in the environment, never on a command line. Each returns null when the credentials worked, else
 * what went wrong.
 */
final class PodClients {
    static final String PYTHON = System.getProperty("roboco.it.python", "/usr/bin/python3");
    private static final Duration BOUND = Duration.ofSeconds(60);

    private PodClients() {}

    static String psql(TestCluster cluster, String url) {
        ExecResult r = cluster.runOnNetwork(
                LocalImages.IMAGES.get("postgres"),
                Map.of("URL", url),
                List.of(
                        "sh",
                        "-c",
                        "psql \"$URL\" -v ON_ERROR_STOP=1 -tA -c 'CREATE TABLE kube_probe(x int)'"
                                + " -c 'INSERT INTO kube_probe VALUES (41), (1)' -c 'SELECT sum(x) FROM kube_probe'"
                                + " -c 'DROP TABLE kube_probe'"),
                BOUND);
        return r.exitCode() == 0 && r.stdout().contains("42")
                ? null
                : "psql: " + r.exitCode() + " " + r.stdout() + r.stderr();
    }

    static String redisCli(TestCluster cluster, String url) {
        ExecResult r = cluster.runOnNetwork(
                LocalImages.IMAGES.get("redis"),
                Map.of("URL", url),
                List.of(
                        "sh",
                        "-c",
                        "redis-cli --no-auth-warning -u \"$URL\" SET kube_probe 42 >/dev/null"
                                + " && redis-cli --no-auth-warning -u \"$URL\" GET kube_probe"),
                BOUND);
        return r.exitCode() == 0 && r.stdout().strip().equals("42")
                ? null
                : "redis-cli: " + r.exitCode() + " " + r.stdout() + r.stderr();
    }

    static String pymongo(String url) {
        String script = "import os, pymongo\n"
                + "c = pymongo.MongoClient(os.environ['URL'], serverSelectionTimeoutMS=20000)\n"
                + "db = c.get_default_database()\n"
                + "db.kube_probe.insert_one({'x': 42})\n"
                + "print(db.kube_probe.find_one({'x': 42})['x'])\n";
        try {
            ProcessBuilder pb = new ProcessBuilder(PYTHON, "-c", script).redirectErrorStream(true);
            pb.environment().put("URL", url);
            Process p = pb.start();
            if (!p.waitFor(BOUND.toSeconds(), TimeUnit.SECONDS)) {
                p.destroyForcibly();
                return "pymongo: no answer in " + BOUND.toSeconds() + " s";
            }
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            return p.exitValue() == 0 && out.strip().equals("42") ? null : "pymongo: " + p.exitValue() + " " + out;
        } catch (IOException e) {
            return "cannot run " + PYTHON + " (Debian's python3 with python3-pymongo; scripts/test.sh installs it): "
                    + e.getMessage();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "interrupted";
        }
    }

    /** Whichever client fits the service's env dict; null when its credentials worked. */
    static String use(TestCluster cluster, String service, Map<String, String> env) {
        return switch (service) {
            case "postgres" -> psql(cluster, env.get("ROBOCO_TEST_DB_URL"));
            case "redis" -> redisCli(cluster, env.get("ROBOCO_TEST_REDIS_URL"));
            case "mongo" -> pymongo(env.get("ROBOCO_TEST_MONGO_URL"));
            default -> "no client for " + service;
        };
    }
}
