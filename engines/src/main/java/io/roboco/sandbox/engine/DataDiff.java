package io.roboco.sandbox.engine;

import java.util.ArrayList;
import java.util.List;

/**
 * One service's data diff against a checkpoint ({@link DataDiffs}): the parts (tables, keyspaces, collections) that
 * changed, at most {@link DataDiffs.Limits#parts} of them, and how many were left unlisted or did not change.
 */
public record DataDiff(List<Part> changed, int unlisted, int unchanged) {
    public DataDiff {
        changed = List.copyOf(changed);
    }

    public boolean isEmpty() {
        return changed.isEmpty() && unlisted == 0;
    }

    /** How a part differs from the checkpoint's. */
    public enum Status {
        /** In both, with records inserted, updated or deleted. */
        CHANGED,
        /** Not in the checkpoint: every record is inserted. */
        ADDED,
        /** Only in the checkpoint: every record is deleted. */
        REMOVED,
        /** A table without a primary key: its rows cannot be matched, so only the counts are compared. */
        NO_PRIMARY_KEY
    }

    /**
     * One changed part: its kind ({@code table}, {@code keyspace}, {@code collection}), its name ({@code public.users},
     * {@code db0}, {@code orders}), what its records are matched by ({@code id}, {@code (tenant, id)}, {@code _id},
     * {@code key}; null without one), the counts, records before and after, the samples and a note (null when none).
     */
    public record Part(
            String kind,
            String name,
            String matchedBy,
            Status status,
            long inserted,
            long updated,
            long deleted,
            long recordsBefore,
            long recordsAfter,
            List<Sample> insertedSample,
            List<Sample> updatedSample,
            List<Sample> deletedSample,
            String note) {
        public Part {
            insertedSample = List.copyOf(insertedSample);
            updatedSample = List.copyOf(updatedSample);
            deletedSample = List.copyOf(deletedSample);
        }
    }

    /**
     * One record of a sample: its key as text (a JSON object of the primary key's columns, a Redis key as redis-cli quotes
     * it, a Mongo {@code _id} as extended JSON), and the record before and after as text cut to
     * {@link DataDiffs.Limits#valueChars} (null on the side where it does not exist, or where the engine shows none).
     */
    public record Sample(String key, String before, String after) {}

    /**
     * The counts of one part as an engine walks its records, and the keys of the first {@link DataDiffs.Limits#samples}
     * of each kind of change (the engine then reads those records for the samples).
     */
    public static final class Tally {
        private final int cap;
        private long inserted;
        private long updated;
        private long deleted;
        private long before;
        private long after;
        private final List<String> insertedKeys = new ArrayList<>();
        private final List<String> updatedKeys = new ArrayList<>();
        private final List<String> deletedKeys = new ArrayList<>();

        public Tally(DataDiffs.Limits limits) {
            this.cap = limits.samples();
        }

        /** A record only now: counted, its key kept while the sample has room; whether it was kept. */
        public boolean inserted(String key) {
            inserted++;
            after++;
            return keep(insertedKeys, key);
        }

        /** A record on both sides, not the same: counted, its key kept while the sample has room; whether it was kept. */
        public boolean updated(String key) {
            updated++;
            before++;
            after++;
            return keep(updatedKeys, key);
        }

        /** A record only then: counted, its key kept while the sample has room; whether it was kept. */
        public boolean deleted(String key) {
            deleted++;
            before++;
            return keep(deletedKeys, key);
        }

        /** A record the same on both sides. */
        public void same() {
            before++;
            after++;
        }

        /** Counts only, for a part whose records cannot be matched. */
        public void counts(long recordsBefore, long recordsAfter) {
            before = recordsBefore;
            after = recordsAfter;
        }

        public boolean changed() {
            return inserted + updated + deleted > 0;
        }

        public List<String> insertedKeys() {
            return List.copyOf(insertedKeys);
        }

        public List<String> updatedKeys() {
            return List.copyOf(updatedKeys);
        }

        public List<String> deletedKeys() {
            return List.copyOf(deletedKeys);
        }

        /** The part these counts make, with the samples the engine read. */
        public Part part(
                String kind,
                String name,
                String matchedBy,
                Status status,
                List<Sample> insertedSample,
                List<Sample> updatedSample,
                List<Sample> deletedSample,
                String note) {
            return new Part(
                    kind,
                    name,
                    matchedBy,
                    status,
                    inserted,
                    updated,
                    deleted,
                    before,
                    after,
                    insertedSample,
                    updatedSample,
                    deletedSample,
                    note);
        }

        private boolean keep(List<String> keys, String key) {
            if (keys.size() < cap) {
                keys.add(key);
                return true;
            }
            return false;
        }
    }

    /** Collects the parts of one diff: changed ones listed up to {@link DataDiffs.Limits#parts}, the rest counted. */
    public static final class Builder {
        private final DataDiffs.Limits limits;
        private final List<Part> changed = new ArrayList<>();
        private int unlisted;
        private int unchanged;

        public Builder(DataDiffs.Limits limits) {
            this.limits = limits;
        }

        /** Whether another changed part would still be listed (when not, the engine need not read its samples). */
        public boolean listing() {
            return changed.size() < limits.parts();
        }

        public void add(Part part) {
            if (listing()) {
                changed.add(part);
            } else {
                unlisted++;
            }
        }

        /** A changed part past the listing bound: counted only. */
        public void unlisted() {
            unlisted++;
        }

        public void unchanged() {
            unchanged++;
        }

        public DataDiff build() {
            return new DataDiff(changed, unlisted, unchanged);
        }
    }
}
