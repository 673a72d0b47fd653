package io.roboco.sandbox.engine.redis;

import io.roboco.sandbox.engine.CheckpointName;
import io.roboco.sandbox.engine.DataDiff;
import io.roboco.sandbox.engine.DataDiffs;
import io.roboco.sandbox.engine.ExecResult;
import io.roboco.sandbox.engine.ProbeTarget;
import io.roboco.sandbox.engine.UnknownNameException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Redis {@link DataDiffs}: the keyspace now against a checkpoint's RDB file ({@link RedisCheckpoints}), database by
 * database, keys matched by name. Inside the sandbox's container, through one exec: a second {@code redis-server} loads
 * a copy of the checkpoint's file on a unix socket in the checkpoint directory (no port, mode 700, gone after the diff),
 * and both servers are asked each key's type and {@code DEBUG DIGEST-VALUE} (a digest of the value that does not depend
 * on its encoding); {@code awk} compares the two lists and prints the counts and the first keys of each change.
 *
 * <p>The second server holds the checkpoint's data for the diff's length, in the container's memory (at most
 * {@link RedisCheckpoints#MAX_TOTAL_BYTES} of files); an expiry that passed since the checkpoint drops the key from it,
 * as a rewind would. Keys are shown as {@code redis-cli} quotes them (without the outer quotes). A checkpoint holding a
 * module's data type loads only where the module is loaded at start.
 */
final class RedisDataDiffs implements DataDiffs {
    private static final String SCRIPT = RedisCheckpoints.PREAMBLE
            + "[ -f \"$D/$1.rdb\" ] || exit " + RedisCheckpoints.UNKNOWN + "\n"
            + "T=$(mktemp -d \"$D/.diff.XXXXXX\") || exit 1\n"
            + "cold() { (unset REDISCLI_AUTH; redis-cli -s \"$T/s\" \"$@\"); }\n"
            + "trap 'cold SHUTDOWN NOSAVE >/dev/null 2>&1; rm -rf \"$T\"' EXIT\n"
            + "cp \"$D/$1.rdb\" \"$T/dump.rdb\" || exit 1\n"
            + "N=$(cli CONFIG GET databases | sed -n 2p)\n"
            + "(unset REDISCLI_AUTH; exec redis-server --port 0 --unixsocket \"$T/s\" --unixsocketperm 700 --dir \"$T\""
            + " --dbfilename dump.rdb --save '' --appendonly no --databases \"$N\" --daemonize yes --logfile \"$T/log\""
            + " --enable-debug-command local) || { echo 'could not start a server on the checkpoint' >&2; exit 1; }\n"
            + "i=0; until [ \"$(cold PING 2>/dev/null)\" = PONG ]; do i=$((i+1)); if [ $i -gt 600 ]; then"
            + " echo \"the checkpoint did not load in 60 s: $(tail -n 3 \"$T/log\")\" >&2; exit 1; fi; sleep 0.1; done\n"
            + "dbs() { \"$@\" INFO keyspace | sed -n 's/^db\\([0-9][0-9]*\\):.*/\\1/p'; }\n"
            + "keys() { db=$1; shift; \"$@\" -n \"$db\" --scan --no-raw > \"$T/k\" || return 1\n"
            + "  [ -s \"$T/k\" ] || return 0\n"
            + "  sed 's/^/TYPE /' \"$T/k\" | \"$@\" -n \"$db\" > \"$T/t\" || return 1\n"
            + "  sed 's/^/DEBUG DIGEST-VALUE /' \"$T/k\" | \"$@\" -n \"$db\" > \"$T/d\" || return 1\n"
            + "  paste \"$T/k\" \"$T/t\" \"$T/d\" | awk -v db=\"$db\" '{ print db \"\\t\" $0 }'; }\n"
            + "DBS=$( { dbs cli; dbs cold; } | sort -un)\n"
            + "for db in $DBS; do keys \"$db\" cold || exit 1; done > \"$T/before\"\n"
            + "for db in $DBS; do keys \"$db\" cli || exit 1; done > \"$T/after\"\n"
            + "awk -F '\\t' -v cap=\"$2\" '\n"
            + "FILENAME == ARGV[1] { k = $1 FS $2; old[k] = $4; ot[k] = $3; nb[$1]++; seen[$1] = 1; next }\n"
            + "{ k = $1 FS $2; na[$1]++; seen[$1] = 1\n"
            + "  if (!(k in old)) { a[$1]++; if (a[$1] <= cap) print \"A\" FS k FS FS $3 }\n"
            + "  else { if (old[k] != $4 || ot[k] != $3) { c[$1]++; if (c[$1] <= cap) print \"C\" FS k FS ot[k] FS $3 }\n"
            + "    delete old[k] } }\n"
            + "END { for (k in old) { split(k, p, FS); r[p[1]]++; if (r[p[1]] <= cap) print \"R\" FS k FS ot[k] FS }\n"
            + "  for (d in seen) print \"N\" FS d FS a[d]+0 FS c[d]+0 FS r[d]+0 FS nb[d]+0 FS na[d]+0 }'"
            + " \"$T/before\" \"$T/after\"\n";

    @Override
    public DataDiff diff(ProbeTarget target, String checkpoint, Limits limits) throws Exception {
        CheckpointName.of(checkpoint);
        ExecResult r = target.exec()
                .exec(
                        List.of("sh", "-c", SCRIPT, "sh", checkpoint, Integer.toString(limits.samples())),
                        Map.of("REDISCLI_AUTH", target.credentials().adminPassword()));
        if (r.exitCode() == RedisCheckpoints.UNKNOWN) {
            List<String> names = new RedisCheckpoints()
                    .list(target).stream().map(c -> c.name()).toList();
            throw new UnknownNameException("no checkpoint '" + checkpoint + "' in this sandbox's redis; there are: "
                    + (names.isEmpty() ? "none" : String.join(", ", names)));
        }
        if (!r.ok()) {
            String why = (r.stderr().isBlank() ? r.stdout() : r.stderr()).strip();
            throw new IllegalStateException("redis diff_data failed (exit code " + r.exitCode() + "): "
                    + (why.length() > 500 ? why.substring(0, 500) + "…" : why));
        }
        return parse(r.stdout(), limits);
    }

    /** The script's output: {@code A|C|R db key before-type after-type} sample lines and {@code N db counts} lines. */
    static DataDiff parse(String out, Limits limits) {
        Map<Integer, long[]> counts = new TreeMap<>();
        Map<Integer, List<List<DataDiff.Sample>>> samples = new TreeMap<>();
        for (String line : out.split("\n")) {
            String[] f = line.split("\t", -1);
            if (f[0].equals("N") && f.length == 7) {
                long[] n = new long[5];
                for (int i = 0; i < 5; i++) {
                    n[i] = Long.parseLong(f[i + 2].strip());
                }
                counts.put(Integer.parseInt(f[1]), n);
            } else if (f.length == 5 && f[0].length() == 1 && "ACR".contains(f[0])) {
                int kind = "ACR".indexOf(f[0]);
                List<List<DataDiff.Sample>> db = samples.computeIfAbsent(
                        Integer.parseInt(f[1]), d -> List.of(new ArrayList<>(), new ArrayList<>(), new ArrayList<>()));
                db.get(kind)
                        .add(new DataDiff.Sample(
                                limits.cut(unquote(f[2])), blankToNull(f[3].strip()), blankToNull(f[4].strip())));
            }
        }
        DataDiff.Builder builder = new DataDiff.Builder(limits);
        for (Map.Entry<Integer, long[]> e : counts.entrySet()) {
            long[] n = e.getValue();
            if (n[0] + n[1] + n[2] == 0) {
                builder.unchanged();
                continue;
            }
            List<List<DataDiff.Sample>> s = samples.getOrDefault(e.getKey(), List.of(List.of(), List.of(), List.of()));
            builder.add(new DataDiff.Part(
                    "keyspace",
                    "db" + e.getKey(),
                    "key",
                    DataDiff.Status.CHANGED,
                    n[0],
                    n[1],
                    n[2],
                    n[3],
                    n[4],
                    sorted(s.get(0)),
                    sorted(s.get(1)),
                    sorted(s.get(2)),
                    "a sample shows each key's type; the values are compared by digest"));
        }
        return builder.build();
    }

    private static List<DataDiff.Sample> sorted(List<DataDiff.Sample> samples) {
        List<DataDiff.Sample> out = new ArrayList<>(samples);
        out.sort(Comparator.comparing(DataDiff.Sample::key));
        return out;
    }

    /** A key as {@code redis-cli --no-raw} prints it ({@code "user:1"}), without the outer quotes. */
    static String unquote(String quoted) {
        String s = quoted.strip();
        return s.length() >= 2 && s.startsWith("\"") && s.endsWith("\"") ? s.substring(1, s.length() - 1) : s;
    }

    private static String blankToNull(String s) {
        return s.isEmpty() ? null : s;
    }
}
