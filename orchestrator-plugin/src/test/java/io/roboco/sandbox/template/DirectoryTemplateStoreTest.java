package io.roboco.sandbox.template;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.roboco.sandbox.request.TemplateName;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Templates as files: a dump plus its metadata, all or nothing, by project and name; metadata never carries the dump;
 * one project's templates are its own, and capped.
 */
class DirectoryTemplateStoreTest {
    @TempDir
    Path dir;

    private static TemplateInfo info(String name, String major) {
        return info("shop", name, major);
    }

    private static TemplateInfo info(String project, String name, String major) {
        return new TemplateInfo(
                name,
                project,
                "sbx_1",
                major,
                major + ".1",
                0,
                Instant.parse("2026-12-01T12:00:00Z"),
                "abc123",
                List.of("pg_trgm"));
    }

    private static String read(InputStream in) throws Exception {
        try (in) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }

    private static TemplateStore.Dump bytes(int n) {
        return out -> {
            byte[] chunk = new byte[100];
            for (int i = 0; i < n / 100; i++) {
                out.write(chunk);
            }
            out.write(new byte[n % 100]);
        };
    }

    private List<Path> files() throws Exception {
        try (var walk = Files.walk(dir)) {
            return walk.filter(Files::isRegularFile).toList();
        }
    }

    @Test
    void aSavedTemplateIsListedWithItsSizeAndReadsBackItsDump() throws Exception {
        DirectoryTemplateStore store = new DirectoryTemplateStore(dir.resolve("templates"));
        assertThat(store.list("shop")).isEmpty();
        assertThat(store.knownNames("shop")).isEqualTo("none");
        TemplateInfo saved = store.save(
                info("shop-v1", "15"),
                out -> out.write("CREATE TABLE t (id int);\n".getBytes(StandardCharsets.UTF_8)),
                false);

        assertThat(saved.sizeBytes()).isEqualTo(25);
        assertThat(store.list("shop")).containsExactly(saved);
        assertThat(store.listAll()).containsExactly(saved);
        assertThat(store.find("shop", "shop-v1")).contains(saved);
        assertThat(read(store.open("shop", "shop-v1"))).isEqualTo("CREATE TABLE t (id int);\n");
        assertThat(DirectoryTemplateStore.toJson(saved))
                .containsOnlyKeys(
                        "name",
                        "project",
                        "sandbox",
                        "major",
                        "postgres_version",
                        "size_bytes",
                        "created",
                        "schema_digest",
                        "extensions");
        assertThat(Files.readString(dir.resolve("templates/shop/shop-v1.json"))).doesNotContain("CREATE TABLE");
        assertThat(new DirectoryTemplateStore(dir.resolve("templates")).find("shop", "shop-v1"))
                .as("read back by a new store")
                .contains(saved);
    }

    @Test
    void aTakenNameIsRefusedUnlessReplacingIsAsked() throws Exception {
        DirectoryTemplateStore store = new DirectoryTemplateStore(dir);
        store.save(info("a", "15"), out -> out.write('1'), false);
        assertThatThrownBy(() -> store.save(info("a", "17"), out -> out.write('2'), false))
                .isInstanceOf(TemplateStore.NameTaken.class)
                .hasMessageContaining("'a' already exists in project 'shop'")
                .hasMessageContaining("replace");
        assertThat(read(store.open("shop", "a"))).isEqualTo("1");
        store.save(info("a", "17"), out -> out.write('2'), true);
        assertThat(read(store.open("shop", "a"))).isEqualTo("2");
        assertThat(store.find("shop", "a").orElseThrow().major()).isEqualTo("17");
    }

    @Test
    void aProjectSeesAndReplacesOnlyItsOwnTemplates() throws Exception {
        DirectoryTemplateStore store = new DirectoryTemplateStore(dir);
        store.save(info("beta", "base", "15"), out -> out.write("beta's".getBytes(StandardCharsets.UTF_8)), false);

        TemplateInfo alphas = store.save(
                info("alpha", "base", "15"), out -> out.write("alpha's".getBytes(StandardCharsets.UTF_8)), true);

        assertThat(alphas.project()).isEqualTo("alpha");
        assertThat(read(store.open("beta", "base")))
                .as("another project's template of the same name is untouched")
                .isEqualTo("beta's");
        assertThat(read(store.open("alpha", "base"))).isEqualTo("alpha's");
        assertThat(store.list("alpha")).extracting(TemplateInfo::project).containsExactly("alpha");
        assertThat(store.knownNames("gamma")).isEqualTo("none");
        assertThat(store.find("gamma", "base")).isEmpty();
        assertThatThrownBy(() -> store.open("gamma", "base")).isInstanceOf(FileNotFoundException.class);
        assertThat(store.listAll()).extracting(TemplateInfo::project).containsExactly("alpha", "beta");
    }

    @Test
    void theDirectorySaysWhoseATemplateIsWhateverItsMetadataSays() throws Exception {
        DirectoryTemplateStore store = new DirectoryTemplateStore(dir);
        store.save(info("alpha", "t", "15"), out -> out.write('x'), false);
        Files.writeString(
                dir.resolve("alpha/t.json"),
                Files.readString(dir.resolve("alpha/t.json")).replace("\"alpha\"", "\"beta\""));

        assertThat(store.find("alpha", "t").orElseThrow().project()).isEqualTo("alpha");
        assertThat(store.find("beta", "t")).isEmpty();
    }

    @Test
    void aProjectKeepsAtMostItsCountOfTemplatesButMayReplaceOne() throws Exception {
        DirectoryTemplateStore store = new DirectoryTemplateStore(dir, new TemplateLimits(2, 1000, 10_000));
        store.save(info("a", "15"), bytes(10), false);
        store.save(info("b", "15"), bytes(10), false);

        assertThatThrownBy(() -> store.save(info("c", "15"), bytes(10), false))
                .isInstanceOf(TemplateStore.OverCap.class)
                .hasMessageContaining("ROBOCO_SANDBOX_TEMPLATES_PER_PROJECT=2")
                .hasMessageContaining("a, b")
                .hasMessageContaining("nothing was written");
        assertThat(store.save(info("b", "17"), bytes(20), true).sizeBytes())
                .as("a replace does not count twice")
                .isEqualTo(20);
        assertThat(store.save(info("other", "c", "15"), bytes(10), false))
                .as("another project has its own count")
                .isNotNull();
        assertThat(store.list("shop")).extracting(TemplateInfo::name).containsExactly("a", "b");
    }

    @Test
    void aDumpOverThePerTemplateCapIsCutOffAndNothingIsWritten() throws Exception {
        DirectoryTemplateStore store = new DirectoryTemplateStore(dir, new TemplateLimits(5, 1000, 10_000));
        store.save(info("keep", "15"), bytes(1000), false);

        assertThatThrownBy(() -> store.save(info("big", "15"), bytes(1001), false))
                .isInstanceOf(TemplateStore.OverCap.class)
                .hasMessageContaining("larger than 1000 bytes")
                .hasMessageContaining("ROBOCO_SANDBOX_TEMPLATE_MAX_SIZE");
        assertThatThrownBy(() -> store.save(info("keep", "17"), bytes(5000), true))
                .isInstanceOf(TemplateStore.OverCap.class);

        assertThat(store.list("shop")).extracting(TemplateInfo::name).containsExactly("keep");
        assertThat(read(store.open("shop", "keep"))).hasSize(1000);
        assertThat(store.find("shop", "keep").orElseThrow().major())
                .as("a refused replace leaves the old one")
                .isEqualTo("15");
        assertThat(files())
                .extracting(p -> p.getFileName().toString())
                .containsExactlyInAnyOrder("keep.sql", "keep.json");
    }

    @Test
    void aDumpThatSwallowsTheCapFailureIsStillRefused() throws Exception {
        DirectoryTemplateStore store = new DirectoryTemplateStore(dir, new TemplateLimits(5, 100, 10_000));
        assertThatThrownBy(() -> store.save(
                        info("sly", "15"),
                        out -> {
                            try {
                                out.write(new byte[500]);
                            } catch (IOException ignored) {
                                // a writer that wraps or drops the failure
                            }
                        },
                        false))
                .isInstanceOf(TemplateStore.OverCap.class);
        assertThat(files()).isEmpty();
    }

    @Test
    void aProjectsTemplatesTogetherStayUnderItsTotal() throws Exception {
        DirectoryTemplateStore store = new DirectoryTemplateStore(dir, new TemplateLimits(10, 1000, 1500));
        store.save(info("a", "15"), bytes(1000), false);

        assertThatThrownBy(() -> store.save(info("b", "15"), bytes(600), false))
                .isInstanceOf(TemplateStore.OverCap.class)
                .hasMessageContaining("ROBOCO_SANDBOX_TEMPLATES_PROJECT_SIZE")
                .hasMessageContaining("(a)");
        assertThat(store.save(info("b", "15"), bytes(500), false).sizeBytes()).isEqualTo(500);
        assertThatThrownBy(() -> store.save(info("c", "15"), bytes(1), false))
                .isInstanceOf(TemplateStore.OverCap.class)
                .hasMessageContaining("a, b");
        assertThat(store.save(info("a", "17"), bytes(900), true).sizeBytes())
                .as("a replace frees the old size first")
                .isEqualTo(900);
        assertThat(store.save(info("other", "a", "15"), bytes(1000), false))
                .as("another project has its own total")
                .isNotNull();
    }

    @Test
    void anOperatorsCopyIsTheReceivingProjectsOwnUnderItsCaps() throws Exception {
        DirectoryTemplateStore store = new DirectoryTemplateStore(dir, new TemplateLimits(1, 1000, 10_000));
        store.save(info("alpha", "base", "15"), out -> out.write("alpha's".getBytes(StandardCharsets.UTF_8)), false);

        TemplateInfo copy = store.copy("alpha", "base", "beta", "shared-base", false);

        assertThat(copy.project()).isEqualTo("beta");
        assertThat(copy.name()).isEqualTo("shared-base");
        assertThat(copy.major()).isEqualTo("15");
        assertThat(read(store.open("beta", "shared-base"))).isEqualTo("alpha's");
        assertThatThrownBy(() -> store.copy("alpha", "base", "beta", "again", false))
                .isInstanceOf(TemplateStore.OverCap.class);
        assertThatThrownBy(() -> store.copy("alpha", "nope", "beta", null, false))
                .isInstanceOf(FileNotFoundException.class);
    }

    @Test
    void theOneDirectoryLayoutIsMovedIntoProjectDirectories() throws Exception {
        Files.writeString(dir.resolve("old.sql"), "CREATE TABLE t ();\n");
        Files.writeString(
                dir.resolve("old.json"),
                "{\"name\":\"old\",\"project\":\"shop\",\"major\":\"15\",\"size_bytes\":19,"
                        + "\"created\":\"2026-12-01T12:00:00Z\"}");
        Files.writeString(dir.resolve("orphan.json"), "{\"name\":\"orphan\",\"created\":\"2026-12-01T12:00:00Z\"}");

        DirectoryTemplateStore store = new DirectoryTemplateStore(dir);

        assertThat(store.find("shop", "old").orElseThrow().sizeBytes()).isEqualTo(19);
        assertThat(read(store.open("shop", "old"))).isEqualTo("CREATE TABLE t ();\n");
        assertThat(store.listAll()).extracting(TemplateInfo::name).containsExactly("old");
    }

    @Test
    void aFailedDumpLeavesNoTemplateAndNoPartFile() throws Exception {
        DirectoryTemplateStore store = new DirectoryTemplateStore(dir);
        assertThatThrownBy(() -> store.save(
                        info("broken", "15"),
                        out -> {
                            out.write("half".getBytes(StandardCharsets.UTF_8));
                            throw new IllegalStateException("pg_dump failed");
                        },
                        false))
                .hasMessage("pg_dump failed");
        assertThat(store.list("shop")).isEmpty();
        assertThat(files()).isEmpty();
    }

    @Test
    void deleteRemovesBothFilesAndAnswersWhetherThereWasOne() throws Exception {
        DirectoryTemplateStore store = new DirectoryTemplateStore(dir);
        store.save(info("gone", "15"), out -> out.write('x'), false);
        assertThat(store.delete("other", "gone")).isFalse();
        assertThat(store.delete("shop", "gone")).isTrue();
        assertThat(store.delete("shop", "gone")).isFalse();
        assertThat(store.find("shop", "gone")).isEmpty();
        assertThatThrownBy(() -> store.open("shop", "gone")).isInstanceOf(FileNotFoundException.class);
        assertThat(files()).isEmpty();
    }

    @Test
    void namesThatCouldLeaveTheDirectoryAreNeverUsed() throws Exception {
        DirectoryTemplateStore store = new DirectoryTemplateStore(dir.resolve("t"));
        for (String bad : List.of("../x", "a/b", "A", "", "-x", "x".repeat(31))) {
            assertThat(TemplateName.isValid(bad)).as(bad).isFalse();
            assertThat(store.find("shop", bad)).isEmpty();
            assertThat(store.delete("shop", bad)).isFalse();
            assertThatThrownBy(() -> store.open("shop", bad)).isInstanceOf(FileNotFoundException.class);
        }
        for (String bad : List.of("..", "../x", "a/b", "", ".hidden")) {
            assertThat(store.find(bad, "x")).isEmpty();
            assertThat(store.list(bad)).isEmpty();
            assertThat(store.delete(bad, "x")).isFalse();
            assertThatThrownBy(() -> store.save(info(bad, "x", "15"), out -> {}, false))
                    .isInstanceOf(IllegalArgumentException.class);
        }
        assertThatThrownBy(() -> store.save(info("../x", "15"), out -> {}, false))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void unreadableMetadataIsLeftOutOfTheList() throws Exception {
        DirectoryTemplateStore store = new DirectoryTemplateStore(dir);
        store.save(info("good", "15"), out -> out.write('x'), false);
        Files.writeString(dir.resolve("shop/bad.json"), "{not json");
        assertThat(store.list("shop")).extracting(TemplateInfo::name).containsExactly("good");
    }

    @Test
    void aTemplateRestoresIntoItsMajorOrNewerOnly() {
        TemplateInfo from15 = info("t", "15");
        assertThat(from15.refusalFor("15", "x")).isEmpty();
        assertThat(from15.refusalFor("17", "x")).isEmpty();
        assertThat(from15.refusalFor("", "x"))
                .as("an unknown major is left to the restore's own check")
                .isEmpty();
        assertThat(info("t", "17").refusalFor("15", "project 'p'"))
                .hasValueSatisfying(why -> assertThat(why)
                        .contains(
                                "template 't' was saved from PostgreSQL 17",
                                "project 'p' runs PostgreSQL 15",
                                "sandbox_versions"));
    }
}
