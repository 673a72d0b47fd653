package io.roboco.sandbox.engine;

/**
 * What changed in a sandbox service's data since one of its checkpoints ({@link Engine#dataDiffs}, {@code diff_data}):
 * per table, keyspace or collection the records inserted, updated and deleted, matched by key (a Postgres table's primary
 * key, a Redis key, a Mongo {@code _id}), with a capped sample of each. Read on the plugin-held admin credential from the
 * agent's data and the checkpoint's copy ({@link Checkpoints}), both inside the sandbox; nothing is changed.
 */
public interface DataDiffs {
    /**
     * The bounds of one diff: at most {@code samples} records shown per kind of change and part, each record's text cut to
     * {@code valueChars} characters, at most {@code parts} changed parts listed (the rest are counted).
     */
    record Limits(int samples, int valueChars, int parts) {
        public static final Limits DEFAULT = new Limits(5, 200, 50);

        public Limits {
            if (samples < 0 || valueChars < 16 || parts < 1) {
                throw new IllegalArgumentException(
                        "diff limits out of range: " + samples + ", " + valueChars + ", " + parts);
            }
        }

        /** {@code text} cut to {@link #valueChars}, marked with {@code …} when cut; null stays null. */
        public String cut(String text) {
            if (text == null || text.length() <= valueChars) {
                return text;
            }
            return text.substring(0, valueChars - 1) + "…";
        }
    }

    /**
     * The diff of the agent's data now against checkpoint {@code checkpoint}.
     *
     * @throws UnknownNameException when there is no such checkpoint (the message lists the ones there are)
     */
    DataDiff diff(ProbeTarget target, String checkpoint, Limits limits) throws Exception;
}
