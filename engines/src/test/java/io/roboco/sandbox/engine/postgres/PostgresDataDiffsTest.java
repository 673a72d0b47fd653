package io.roboco.sandbox.engine.postgres;

import static org.assertj.core.api.Assertions.assertThat;

import io.roboco.sandbox.engine.DataDiff;
import io.roboco.sandbox.engine.DataDiffs;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * The merge at the heart of the Postgres data diff: two key-ordered streams of {@code (key, hash)} give inserts, updates
 * and deletes by key, a multiset of whole rows (the table without a primary key) gives inserts and deletes, and the
 * Java order it merges in is the byte order {@code COLLATE "C"} sorts UTF-8 keys in.
 */
class PostgresDataDiffsTest {
    @Test
    void keysOnlyNowAreInsertedOnlyThenDeletedAndOnBothWithAnotherHashUpdated() throws Exception {
        DataDiff.Tally tally = new DataDiff.Tally(DataDiffs.Limits.DEFAULT);
        PostgresDataDiffs.merge(
                rows("[1]", "a", "[2]", "b", "[3]", "c", "[5]", "e"),
                rows("[1]", "a", "[2]", "B", "[4]", "d", "[6]", "f", "[7]", "g"),
                tally);
        DataDiff.Part part =
                tally.part("table", "public.t", "id", DataDiff.Status.CHANGED, List.of(), List.of(), List.of(), null);
        assertThat(List.of(part.inserted(), part.updated(), part.deleted(), part.recordsBefore(), part.recordsAfter()))
                .containsExactly(3L, 1L, 2L, 4L, 5L);
        assertThat(tally.insertedKeys()).containsExactly("[4]", "[6]", "[7]");
        assertThat(tally.updatedKeys()).containsExactly("[2]");
        assertThat(tally.deletedKeys()).containsExactly("[3]", "[5]");
    }

    @Test
    void wholeRowsMatchAsAMultiset() throws Exception {
        DataDiff.Tally tally = new DataDiff.Tally(DataDiffs.Limits.DEFAULT);
        // hashes as keys and values: two equal rows then, one of them now, plus a new one
        PostgresDataDiffs.merge(
                rows("aa", "aa", "aa", "aa", "bb", "bb"), rows("aa", "aa", "bb", "bb", "cc", "cc"), tally);
        assertThat(tally.insertedKeys()).containsExactly("cc");
        assertThat(tally.deletedKeys()).containsExactly("aa");
        assertThat(tally.updatedKeys()).isEmpty();
    }

    @Test
    void samplesKeepTheFirstKeysOnlyWhileCountsGoOn() throws Exception {
        DataDiff.Tally tally = new DataDiff.Tally(new DataDiffs.Limits(2, 100, 10));
        PostgresDataDiffs.merge(rows(), rows("[1]", "a", "[2]", "a", "[3]", "a"), tally);
        assertThat(tally.insertedKeys()).containsExactly("[1]", "[2]");
        assertThat(tally.part("table", "t", "id", DataDiff.Status.ADDED, List.of(), List.of(), List.of(), null)
                        .inserted())
                .isEqualTo(3);
    }

    @Test
    void codePointOrderIsTheByteOrderOfUtf8() {
        long seed = System.nanoTime();
        System.out.println("[seed] codePointOrderIsTheByteOrderOfUtf8 " + seed);
        Random random = new Random(seed);
        int[] pool = {'a', 'z', '"', '[', 0x7f, 0xe9, 0x800, 0xd7ff, 0xe000, 0xfffd, 0x1f600, 0x10ffff};
        for (int n = 0; n < 2_000; n++) {
            String x = randomString(random, pool);
            String y = randomString(random, pool);
            int bytes = Arrays.compareUnsigned(x.getBytes(StandardCharsets.UTF_8), y.getBytes(StandardCharsets.UTF_8));
            assertThat(Integer.signum(PostgresDataDiffs.compareCodePoints(x, y)))
                    .as("seed %d: %s vs %s", seed, x, y)
                    .isEqualTo(Integer.signum(bytes));
        }
    }

    private static String randomString(Random random, int[] pool) {
        StringBuilder s = new StringBuilder();
        int length = random.nextInt(4);
        for (int i = 0; i < length; i++) {
            s.appendCodePoint(pool[random.nextInt(pool.length)]);
        }
        return s.toString();
    }

    /** Rows as key, hash, key, hash, … in key order. */
    private static PostgresDataDiffs.Rows rows(String... keysAndHashes) {
        List<String[]> list = new ArrayList<>();
        for (int i = 0; i < keysAndHashes.length; i += 2) {
            list.add(new String[] {keysAndHashes[i], keysAndHashes[i + 1]});
        }
        Iterator<String[]> it = list.iterator();
        return new PostgresDataDiffs.Rows() {
            String[] current;

            @Override
            public boolean next() {
                current = it.hasNext() ? it.next() : null;
                return current != null;
            }

            @Override
            public String key() {
                return current[0];
            }

            @Override
            public String hash() {
                return current[1];
            }

            @Override
            public void close() {}
        };
    }
}
