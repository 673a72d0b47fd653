package io.roboco.sandbox.engine.redis;

import static org.assertj.core.api.Assertions.assertThat;

import io.roboco.sandbox.engine.DataDiff;
import io.roboco.sandbox.engine.DataDiffs;
import org.junit.jupiter.api.Test;

/** The Redis diff script's output as the engine reads it: counts per database number, sampled keys with their types. */
class RedisDataDiffsTest {
    @Test
    void readsCountsAndSamplesPerDatabaseAndCountsTheUnchanged() {
        String out = "A\t0\t\"c\"\t\tstring\n"
                + "C\t0\t\"h\"\thash\thash\n"
                + "C\t0\t\"a\"\tstring\tlist\n"
                + "R\t0\t\"we ird\\\\nkey\"\tstring\t\n"
                + "N\t0\t1\t2\t1\t4\t4\n"
                + "N\t3\t0\t0\t0\t2\t2\n";
        DataDiff diff = RedisDataDiffs.parse(out, DataDiffs.Limits.DEFAULT);

        assertThat(diff.unchanged()).isEqualTo(1);
        assertThat(diff.changed()).singleElement().satisfies(db0 -> {
            assertThat(db0.name()).isEqualTo("db0");
            assertThat(db0.matchedBy()).isEqualTo("key");
            assertThat(new long[] {db0.inserted(), db0.updated(), db0.deleted(), db0.recordsBefore(), db0.recordsAfter()
                    })
                    .containsExactly(1, 2, 1, 4, 4);
            assertThat(db0.insertedSample()).containsExactly(new DataDiff.Sample("c", null, "string"));
            assertThat(db0.updatedSample())
                    .containsExactly(
                            new DataDiff.Sample("a", "string", "list"), new DataDiff.Sample("h", "hash", "hash"));
            assertThat(db0.deletedSample()).containsExactly(new DataDiff.Sample("we ird\\\\nkey", "string", null));
        });
    }

    @Test
    void nothingChangedIsEmpty() {
        assertThat(RedisDataDiffs.parse("N\t0\t0\t0\t0\t3\t3\n", DataDiffs.Limits.DEFAULT)
                        .isEmpty())
                .isTrue();
        assertThat(RedisDataDiffs.parse("", DataDiffs.Limits.DEFAULT).isEmpty()).isTrue();
    }
}
