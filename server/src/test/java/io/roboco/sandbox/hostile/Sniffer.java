package io.roboco.sandbox.hostile;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A raw-socket listener inside an agent's container ({@code AF_PACKET}, every protocol: what {@code tcpdump} does, written
 * in the Perl the image has), keeping every frame its network interfaces see until told to stop. Started and stopped on
 * latches (its "listening" line; its summary line once the stop file appears), never on a sleep; it gives up by itself
 * after two minutes.
 */
final class Sniffer {
    private static final String SCRIPT = String.join(
            "\n",
            "use strict; use Socket;",
            "socket(my $s, 17, 3, 768) or die \"socket: $!\";", // AF_PACKET, SOCK_RAW, htons(ETH_P_ALL)
            "$| = 1; print \"listening\\n\";",
            "my ($frames, $bytes) = (0, 0);",
            "open(my $out, '>:raw', '/tmp/capture.bin') or die;",
            "my $deadline = time + 120;",
            "while (time < $deadline && ! -e '/tmp/capture.stop') {",
            "  my $rin = ''; vec($rin, fileno($s), 1) = 1;",
            "  if (select(my $rout = $rin, undef, undef, 0.1)) {",
            "    my $buf; my $n = sysread($s, $buf, 65536);",
            "    if ($n) { $frames++; $bytes += $n; print $out $buf; }",
            "  }",
            "}",
            "close $out; print \"frames=$frames bytes=$bytes\\n\";",
            "");
    private static final Pattern SUMMARY = Pattern.compile("frames=(\\d+) bytes=(\\d+)");

    /** What it saw: frames, and their bytes as text (ISO-8859-1, byte for byte) to search. */
    record Capture(int frames, long bytes, String text) {}

    private final AgentContainer container;
    private final Process process;
    private final BufferedReader lines;

    private Sniffer(AgentContainer container, Process process) {
        this.container = container;
        this.process = process;
        this.lines = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
    }

    /** Starts listening in {@code container}; returns once its socket is open. */
    static Sniffer listen(AgentContainer container) throws Exception {
        Shell written =
                container.exec(SCRIPT, "sh", "-c", "rm -f /tmp/capture.stop /tmp/capture.bin; cat > /tmp/sniff.pl");
        if (!written.ok()) {
            throw new IllegalStateException("could not place the sniffer: " + written.text());
        }
        Process p = new ProcessBuilder("docker", "exec", container.name, "perl", "/tmp/sniff.pl")
                .redirectErrorStream(true)
                .start();
        Sniffer sniffer = new Sniffer(container, p);
        String first = CompletableFuture.supplyAsync(sniffer::readLine).get(30, TimeUnit.SECONDS);
        if (!"listening".equals(first)) {
            p.destroyForcibly();
            throw new IllegalStateException("the sniffer did not start: " + first);
        }
        return sniffer;
    }

    /** Stops it and reads what it kept. */
    Capture stop() throws Exception {
        container.exec(null, "touch", "/tmp/capture.stop");
        String summary = CompletableFuture.supplyAsync(this::readLine).get(30, TimeUnit.SECONDS);
        process.waitFor(30, TimeUnit.SECONDS);
        Matcher m = SUMMARY.matcher(String.valueOf(summary));
        if (!m.find()) {
            throw new IllegalStateException("the sniffer ended without its summary: " + summary);
        }
        Shell captured = Shell.run(Duration.ofSeconds(60), "docker", "exec", container.name, "cat", "/tmp/capture.bin");
        return new Capture(
                Integer.parseInt(m.group(1)),
                Long.parseLong(m.group(2)),
                new String(captured.output(), StandardCharsets.ISO_8859_1));
    }

    private String readLine() {
        try {
            return lines.readLine();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
