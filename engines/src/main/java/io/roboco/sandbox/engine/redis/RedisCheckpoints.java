package io.roboco.sandbox.engine.redis;

import io.roboco.sandbox.engine.CheckpointName;
import io.roboco.sandbox.engine.Checkpoints;
import io.roboco.sandbox.engine.ExecResult;
import io.roboco.sandbox.engine.ProbeTarget;
import io.roboco.sandbox.engine.UnknownNameException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Redis {@link Checkpoints}: the whole keyspace (every database number, every key with its expiry, functions) as an RDB
 * file inside the sandbox's own container, where the agent cannot reach it (it has no exec, and its ACL user may not
 * {@code SAVE}, {@code CONFIG} or {@code DEBUG}). Everything runs as the admin through an exec over the server's unix
 * socket, so the admin password never crosses a network, in host and in network mode alike.
 *
 * <ul>
 *   <li>checkpoint: {@code SAVE} (a point-in-time snapshot, the server blocked for its length) and the file moved to
 *       {@value #DIR}{@code /<name>.rdb}.
 *   <li>rewind, prepared: the checkpoint's file is checked ({@code redis-check-rdb}) and the data as it is now saved
 *       aside ({@value #UNDO}), the undo of the switch.
 *   <li>rewind, switched: the checkpoint's file becomes the server's RDB file and {@code DEBUG RELOAD NOSAVE} loads it:
 *       one blocking step, so no client sees a half-loaded keyspace; the agent's connections, its ACL user and its
 *       password stay (ACL users are not in the RDB). A load that fails loads the undo file back before it reports.
 * </ul>
 *
 * <p>Keys keep their <em>expiry times</em>: the RDB records when each key expires, so a key whose time has passed by
 * the rewind is gone, as it would have been. The server must have been started with {@code --enable-debug-command
 * local} ({@link RedisEngine#containerSpec}); an older sandbox is refused with what to do. A checkpoint's file is
 * on the container's tmpfs and counts against its memory; all of a sandbox's Redis checkpoints together hold at most
 * {@link #MAX_TOTAL_BYTES}.
 */
final class RedisCheckpoints implements Checkpoints {
    static final String DIR = RedisEngine.DATA_DIR + "/.roboco-checkpoints";
    static final String UNDO = DIR + "/.undo.rdb";
    /** All of one sandbox's Redis checkpoint files together (the tmpfs they live on is charged to its memory). */
    static final long MAX_TOTAL_BYTES = 128L << 20;

    static final int UNKNOWN = 44;
    private static final int NO_RELOAD = 45;
    private static final int OVER_CAP = 47;

    /** Shell preamble: the socket, the checkpoint directory, the server's RDB path; fails when DEBUG is not local. */
    static final String PREAMBLE = "set -u; umask 077; S=" + RedisEngine.SOCKET + "; D=" + DIR + "\n"
            + "cli() { redis-cli -s \"$S\" \"$@\"; }\n"
            + "RDB=\"$(cli CONFIG GET dir | sed -n 2p)/$(cli CONFIG GET dbfilename | sed -n 2p)\"\n"
            + "if [ \"$(cli CONFIG GET enable-debug-command | sed -n 2p)\" != local ]; then\n"
            + "  echo 'this Redis sandbox was started without --enable-debug-command local, which rewind needs;"
            + " release it and request a new one' >&2; exit " + NO_RELOAD + "; fi\n"
            + "save() { r=$(cli SAVE); [ \"$r\" = OK ] || { echo \"SAVE answered: $r\" >&2; exit 1; }; }\n"
            + "reload() { cp -p \"$1\" \"$RDB\" && r=$(cli DEBUG RELOAD NOSAVE) && [ \"$r\" = OK ]"
            + " || { echo \"DEBUG RELOAD answered: ${r:-nothing}\" >&2; return 1; }; }\n";

    private static final String CHECKPOINT = PREAMBLE + "mkdir -p \"$D\"; save; mv \"$RDB\" \"$D/$1.rdb.new\"\n"
            + "total=$(cat \"$D\"/*.rdb \"$D/$1.rdb.new\" 2>/dev/null | wc -c); own=$(wc -c < \"$D/$1.rdb.new\")\n"
            + "[ -f \"$D/$1.rdb\" ] && total=$((total - $(wc -c < \"$D/$1.rdb\")))\n"
            + "if [ \"$total\" -gt " + MAX_TOTAL_BYTES + " ]; then rm -f \"$D/$1.rdb.new\"; echo \"$total\" >&2; exit "
            + OVER_CAP + "; fi\n"
            + "mv \"$D/$1.rdb.new\" \"$D/$1.rdb\"; echo \"$own\"\n";

    private static final String PREPARE = PREAMBLE + "[ -f \"$D/$1.rdb\" ] || exit " + UNKNOWN + "\n"
            + "redis-check-rdb \"$D/$1.rdb\" > /dev/null 2>&1 || { echo \"checkpoint file $1 does not load\" >&2; exit 1; }\n"
            + "save; mv \"$RDB\" " + UNDO + "\n";

    private static final String COMMIT = PREAMBLE + "if reload \"$D/$1.rdb\"; then wc -c < \"$D/$1.rdb\"; exit 0; fi\n"
            + "reload " + UNDO + " && echo 'the data as it was before is back' >&2; exit 1\n";

    private static final String UNDO_SWITCH = PREAMBLE + "reload " + UNDO + "\n";

    private static final String CLEAN = "rm -f " + UNDO + "; R=\"$(redis-cli -s " + RedisEngine.SOCKET
            + " CONFIG GET dir | sed -n 2p)/$(redis-cli -s " + RedisEngine.SOCKET
            + " CONFIG GET dbfilename | sed -n 2p)\"; rm -f \"$R\"\n";

    private static final String LIST = "for f in " + DIR + "/*.rdb; do [ -f \"$f\" ] && printf '%s %s\\n'"
            + " \"$(basename \"$f\" .rdb)\" \"$(wc -c < \"$f\")\"; done; true\n";

    @Override
    public Result checkpoint(ProbeTarget target, String name) throws Exception {
        CheckpointName.of(name);
        long t0 = System.nanoTime();
        ExecResult r = run(target, CHECKPOINT, name);
        if (r.exitCode() == OVER_CAP) {
            throw new IllegalStateException("redis: this sandbox's checkpoints would hold "
                    + r.stderr().strip()
                    + " bytes, over the cap of " + MAX_TOTAL_BYTES + " bytes; reuse a checkpoint name (the same name"
                    + " replaces it) or hold less data");
        }
        long size = Long.parseLong(ok(r, "checkpoint").strip());
        return new Result(name, size, 0, millis(t0));
    }

    @Override
    public Result rewind(ProbeTarget target, String name) throws Exception {
        try (PreparedRewind prepared = prepareRewind(target, name)) {
            Result result = prepared.commit();
            prepared.finish();
            return result;
        }
    }

    @Override
    public PreparedRewind prepareRewind(ProbeTarget target, String name) throws Exception {
        CheckpointName.of(name);
        long t0 = System.nanoTime();
        ExecResult r = run(target, PREPARE, name);
        if (r.exitCode() == UNKNOWN) {
            throw new UnknownNameException(
                    "no checkpoint '" + name + "' in this sandbox's redis; there are: " + names(list(target)));
        }
        ok(r, "rewind");
        return new PreparedRewind() {
            @Override
            public Result commit() throws Exception {
                long size =
                        Long.parseLong(ok(run(target, COMMIT, name), "rewind").strip());
                return new Result(name, size, 0, millis(t0));
            }

            @Override
            public void undo() throws Exception {
                ok(run(target, UNDO_SWITCH, name), "undoing the rewind");
            }

            @Override
            public void finish() {}

            @Override
            public void close() {
                try {
                    run(target, CLEAN, name);
                } catch (Exception e) {
                    // the undo file stays on the container's tmpfs and goes with it
                }
            }
        };
    }

    @Override
    public void delete(ProbeTarget target, String name) throws Exception {
        CheckpointName.of(name);
        ok(run(target, "rm -f " + DIR + "/\"$1\".rdb " + DIR + "/\"$1\".idx\n", name), "deleting a checkpoint");
    }

    @Override
    public List<Checkpoint> list(ProbeTarget target) throws Exception {
        List<Checkpoint> out = new ArrayList<>();
        for (String line : ok(run(target, LIST, "-"), "listing checkpoints").split("\n")) {
            String[] parts = line.strip().split(" ");
            if (parts.length == 2 && CheckpointName.isValid(parts[0])) {
                out.add(new Checkpoint(parts[0], Long.parseLong(parts[1])));
            }
        }
        return out;
    }

    /** {@code script} in {@code sh -c} with {@code name} as {@code $1}; the admin password reaches redis-cli in the env. */
    static ExecResult run(ProbeTarget target, String script, String name) throws Exception {
        return target.exec()
                .exec(
                        List.of("sh", "-c", script, "sh", name),
                        Map.of("REDISCLI_AUTH", target.credentials().adminPassword()));
    }

    private static String ok(ExecResult r, String what) {
        if (!r.ok()) {
            throw new IllegalStateException("redis " + what + " failed (exit code " + r.exitCode() + "): "
                    + firstLines(r.stderr().isBlank() ? r.stdout() : r.stderr()));
        }
        return r.stdout();
    }

    private static String firstLines(String s) {
        String stripped = s.strip();
        return stripped.length() > 500 ? stripped.substring(0, 500) + "…" : stripped;
    }

    private static String names(List<Checkpoint> checkpoints) {
        return checkpoints.isEmpty()
                ? "none"
                : String.join(", ", checkpoints.stream().map(Checkpoint::name).toList());
    }

    private static long millis(long t0) {
        return (System.nanoTime() - t0) / 1_000_000;
    }
}
