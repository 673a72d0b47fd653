package io.roboco.sandbox.hostile;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/** A command of the test's own (the docker CLI), bounded by a deadline: its exit code (-1 when it ran out of time) and output. */
record Shell(int exit, byte[] output) {
    static Shell run(Duration timeout, String... command) {
        return runFeeding(timeout, null, command);
    }

    /** With {@code stdin} (null: none) fed to the command and closed. */
    static Shell runFeeding(Duration timeout, String stdin, String... command) {
        try {
            Process p = new ProcessBuilder(List.of(command))
                    .redirectErrorStream(true)
                    .start();
            try (OutputStream in = p.getOutputStream()) {
                if (stdin != null) {
                    in.write(stdin.getBytes(StandardCharsets.UTF_8));
                }
            }
            CompletableFuture<byte[]> out = CompletableFuture.supplyAsync(() -> readAll(p.getInputStream()));
            if (!p.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                p.destroyForcibly();
                return new Shell(-1, out.getNow(new byte[0]));
            }
            return new Shell(p.exitValue(), out.get(10, TimeUnit.SECONDS));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (Exception e) {
            if (e instanceof InterruptedException) {
                Thread.currentThread().interrupt();
            }
            throw new IllegalStateException(String.join(" ", command) + ": " + e, e);
        }
    }

    String text() {
        return new String(output, StandardCharsets.UTF_8);
    }

    boolean ok() {
        return exit == 0;
    }

    private static byte[] readAll(InputStream in) {
        try (in;
                ByteArrayOutputStream out = new ByteArrayOutputStream()) {
            in.transferTo(out);
            return out.toByteArray();
        } catch (IOException e) {
            return new byte[0];
        }
    }
}
