package io.roboco.sandbox.template;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.FileNotFoundException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A template's physical copy in the directory store: kept beside its dump and named by its metadata only once its
 * archive is in place, counted in the project's caps with the dump, dropped when the template is replaced or deleted,
 * refused for a template replaced while it was made, and carried along by the operator's copy.
 */
class PhysicalCopyStoreTest {
    private static final Instant SAVED = Instant.parse("2026-12-01T12:00:00Z");
    private static final PhysicalCopy COPY =
            new PhysicalCopy("roboco-sandbox/postgres:15", "15", "roboco_admin", "agent_x", "sandbox_x", 0);

    @TempDir
    Path dir;

    private static TemplateInfo info(String name, Instant created) {
        return new TemplateInfo(name, "shop", "sbx_1", "15", "15.1", 0, created, "abc123", List.of("pg_trgm"));
    }

    private static TemplateStore.PhysicalArchive archive(String content) {
        return out -> {
            out.write(content.getBytes(StandardCharsets.UTF_8));
            return COPY;
        };
    }

    private static String read(InputStream in) throws Exception {
        try (in) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }

    @Test
    void aPhysicalCopyIsKeptBesideTheDumpWithItsSizeAndOrigin() throws Exception {
        DirectoryTemplateStore store = new DirectoryTemplateStore(dir, TemplateLimits.defaults(), true);
        assertThat(store.keepsPhysicalCopies()).isTrue();
        store.save(info("base", SAVED), out -> out.write("dump".getBytes(StandardCharsets.UTF_8)), false);

        TemplateInfo withCopy = store.savePhysical("shop", "base", SAVED, archive("archive-bytes"));

        assertThat(withCopy.physical()).isEqualTo(COPY.withSize(13));
        assertThat(withCopy.storedBytes()).isEqualTo(4 + 13);
        assertThat(read(store.openPhysical("shop", "base"))).isEqualTo("archive-bytes");
        assertThat(read(store.open("shop", "base"))).isEqualTo("dump");
        assertThat(store.find("shop", "base").orElseThrow().physical()).isEqualTo(COPY.withSize(13));
        assertThat(DirectoryTemplateStore.toJson(withCopy)).containsKey("physical");
        assertThat(Files.exists(dir.resolve("shop/base.datadir.tar"))).isTrue();
    }

    @Test
    void replacingOrDeletingATemplateDropsItsCopy() throws Exception {
        DirectoryTemplateStore store = new DirectoryTemplateStore(dir);
        store.save(info("base", SAVED), out -> out.write(1), false);
        store.savePhysical("shop", "base", SAVED, archive("old copy"));

        Instant later = SAVED.plusSeconds(60);
        store.save(info("base", later), out -> out.write(2), true);
        assertThat(store.find("shop", "base").orElseThrow().physical()).isNull();
        assertThat(Files.exists(dir.resolve("shop/base.datadir.tar"))).isFalse();
        assertThatThrownBy(() -> store.openPhysical("shop", "base")).isInstanceOf(FileNotFoundException.class);

        store.savePhysical("shop", "base", later, archive("new copy"));
        assertThat(store.delete("shop", "base")).isTrue();
        try (var files = Files.list(dir.resolve("shop"))) {
            assertThat(files).isEmpty();
        }
    }

    @Test
    void aCopyOfAnEarlierSaveIsNotKeptAndLeavesNoFile() throws Exception {
        DirectoryTemplateStore store = new DirectoryTemplateStore(dir);
        store.save(info("base", SAVED), out -> out.write(1), false);
        store.save(info("base", SAVED.plusSeconds(1)), out -> out.write(2), true);

        assertThatThrownBy(() -> store.savePhysical("shop", "base", SAVED, archive("stale")))
                .isInstanceOf(FileNotFoundException.class)
                .hasMessageContaining("deleted or replaced while its physical copy was made");
        assertThat(store.find("shop", "base").orElseThrow().physical()).isNull();
        try (var files = Files.list(dir.resolve("shop"))) {
            assertThat(files.map(p -> p.getFileName().toString())).containsExactlyInAnyOrder("base.sql", "base.json");
        }
    }

    @Test
    void theCopyCountsInTheProjectsCapsAndOverThemOnlyTheDumpStays() throws Exception {
        DirectoryTemplateStore store = new DirectoryTemplateStore(dir, new TemplateLimits(5, 100, 150), true);
        store.save(info("a", SAVED), out -> out.write(new byte[60]), false);
        store.savePhysical("shop", "a", SAVED, out -> {
            out.write(new byte[60]);
            return COPY;
        });
        assertThat(store.find("shop", "a").orElseThrow().storedBytes()).isEqualTo(120);

        store.save(info("b", SAVED), out -> out.write(new byte[20]), false);
        assertThatThrownBy(() -> store.savePhysical("shop", "b", SAVED, out -> {
                    out.write(new byte[20]);
                    return COPY;
                }))
                .isInstanceOf(TemplateStore.OverCap.class)
                .hasMessageContaining("ROBOCO_SANDBOX_TEMPLATES_PROJECT_SIZE")
                .hasMessageContaining("its dump is kept");
        assertThat(store.find("shop", "b").orElseThrow().physical()).isNull();
        assertThatThrownBy(() -> store.savePhysical("shop", "a", SAVED, out -> {
                    out.write(new byte[101]);
                    return COPY;
                }))
                .isInstanceOf(TemplateStore.OverCap.class)
                .hasMessageContaining("ROBOCO_SANDBOX_TEMPLATE_MAX_SIZE");
        assertThat(read(store.openPhysical("shop", "a"))).hasSize(60);
    }

    @Test
    void theOperatorsCopyCarriesThePhysicalCopyAlong() throws Exception {
        DirectoryTemplateStore store = new DirectoryTemplateStore(dir);
        store.save(info("base", SAVED), out -> out.write("dump".getBytes(StandardCharsets.UTF_8)), false);
        store.savePhysical("shop", "base", SAVED, archive("archive"));

        TemplateInfo copied = store.copy("shop", "base", "other", "base2", false);

        assertThat(copied.physical()).isEqualTo(COPY.withSize(7));
        assertThat(read(store.openPhysical("other", "base2"))).isEqualTo("archive");
    }

    @Test
    void onlyADumpAsLargeAsTheThresholdGetsACopy() {
        DirectoryTemplateStore store = new DirectoryTemplateStore(dir, TemplateLimits.defaults(), true, 1000);
        assertThat(store.keepsPhysicalCopyOf(info("small", SAVED).withSize(999)))
                .isFalse();
        assertThat(store.keepsPhysicalCopyOf(info("large", SAVED).withSize(1000)))
                .isTrue();
        assertThat(new DirectoryTemplateStore(dir)
                        .keepsPhysicalCopyOf(info("d", SAVED).withSize(4L << 20)))
                .as("by default from 4 MB of dump")
                .isTrue();
        assertThat(new DirectoryTemplateStore(dir, TemplateLimits.defaults(), false, 0)
                        .keepsPhysicalCopyOf(info("any", SAVED).withSize(1L << 30)))
                .isFalse();
    }

    @Test
    void aStoreWithoutPhysicalCopiesSaysSo() {
        assertThat(new DirectoryTemplateStore(dir, TemplateLimits.defaults(), false).keepsPhysicalCopies())
                .isFalse();
        assertThat(TemplateStore.none().keepsPhysicalCopies()).isFalse();
    }

    @Test
    void aCopyStartsOnlyOnTheImageAndMajorThatWroteIt() {
        assertThat(COPY.mismatch("roboco-sandbox/postgres:15", "15")).isEmpty();
        assertThat(COPY.mismatch("roboco-sandbox/postgres:15", "")).isEmpty();
        assertThat(COPY.mismatch("roboco-sandbox/postgres:17", "17"))
                .hasValue("its physical copy was written by PostgreSQL 15 on image roboco-sandbox/postgres:15, and this"
                        + " sandbox runs PostgreSQL 17 on image roboco-sandbox/postgres:17 (a data directory starts only"
                        + " on the major and image that wrote it)");
        assertThat(COPY.mismatch("postgres:15-alpine", "15"))
                .as("the same major on another image (another build) is not trusted")
                .isPresent();
    }
}
