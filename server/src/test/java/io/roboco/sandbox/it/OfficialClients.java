package io.roboco.sandbox.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * The official clients an agent would use (psql, redis-cli, pymongo through Debian's {@code /usr/bin/python3}), run
 * on a handed-out env dict from the host, each secret in the client's environment (never its arguments). Each call
 * must succeed within 60 s; a failure says the exit code and what the client printed on stderr. (A psql run on a
 * {@code ROBOCO_TEST_DB_URL} alone, with its exit code kept: orchestrator-plugin's {@code provision.Psql}.)
 */
public final class OfficialClients {
    private static final String PYTHON = "/usr/bin/python3";

    private OfficialClients() {}

    /** {@code sql} through psql as the agent ({@code -XAtq}, stop on the first error); its output, stripped. */
    public static String psql(Map<String, String> env, String sql) {
        return run(
                List.of(
                        "psql",
                        "-X",
                        "-A",
                        "-t",
                        "-q",
                        "-v",
                        "ON_ERROR_STOP=1",
                        "-h",
                        env.get("ROBOCO_TEST_DB_HOST"),
                        "-p",
                        env.get("ROBOCO_TEST_DB_PORT"),
                        "-U",
                        env.get("ROBOCO_TEST_DB_USER"),
                        "-d",
                        env.get("ROBOCO_TEST_DB_NAME"),
                        "-c",
                        sql),
                Map.of("PGPASSWORD", env.get("ROBOCO_TEST_DB_PASSWORD")));
    }

    /** One redis-cli command as the agent's ACL user. */
    public static String redis(Map<String, String> env, String... command) {
        List<String> args = new ArrayList<>(List.of(
                "redis-cli",
                "-h",
                env.get("ROBOCO_TEST_REDIS_HOST"),
                "-p",
                env.get("ROBOCO_TEST_REDIS_PORT"),
                "--user",
                env.get("ROBOCO_TEST_REDIS_USER"),
                "--no-auth-warning"));
        args.addAll(List.of(command));
        return run(args, Map.of("REDISCLI_AUTH", env.get("ROBOCO_TEST_REDIS_PASSWORD")));
    }

    /**
     * {@code statements} in Python ({@code "; "} separates lines) with {@code db} the agent's database, through pymongo
     * on the handed-out URL.
     */
    public static String mongo(Map<String, String> env, String statements) {
        String script = "import os, pymongo\n"
                + "client = pymongo.MongoClient(os.environ['MONGO_URL'], serverSelectionTimeoutMS=10000)\n"
                + "db = client.get_default_database()\n"
                + statements.replace("; ", "\n") + "\n";
        return run(List.of(PYTHON, "-c", script), Map.of("MONGO_URL", env.get("ROBOCO_TEST_MONGO_URL")));
    }

    /** Runs a client with {@code secrets} added to its environment; fails on a non-zero exit with what it printed. */
    public static String run(List<String> args, Map<String, String> secrets) {
        try {
            ProcessBuilder builder = new ProcessBuilder(args);
            builder.environment().putAll(secrets);
            Process process = builder.start();
            process.getOutputStream().close();
            CompletableFuture<String> out = CompletableFuture.supplyAsync(() -> read(process.getInputStream()));
            CompletableFuture<String> err = CompletableFuture.supplyAsync(() -> read(process.getErrorStream()));
            assertThat(process.waitFor(60, TimeUnit.SECONDS))
                    .as("%s finished", args.get(0))
                    .isTrue();
            assertThat(process.exitValue())
                    .as("%s exit code; stderr: %s", args.get(0), err.join())
                    .isZero();
            return out.join().strip();
        } catch (IOException e) {
            throw new UncheckedIOException(args.get(0) + " (scripts/lib/prereqs.sh installs it)", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    private static String read(InputStream in) {
        try (in) {
            ByteArrayOutputStream buffer = new ByteArrayOutputStream();
            in.transferTo(buffer);
            return buffer.toString(StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
