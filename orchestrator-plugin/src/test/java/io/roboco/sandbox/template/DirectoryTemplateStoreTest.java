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

/** Templates as files: a dump plus its metadata, all or nothing, by name; metadata never carries the dump. */
class DirectoryTemplateStoreTest {
    @TempDir
    Path dir;

    private static TemplateInfo info(String name, String major) {
        return new TemplateInfo(name, "shop", "sbx_1", major, major + ".1", 0, Instant.parse("2026-12-01T12:00:00Z"), "abc123",
                List.of("pg_trgm"));
    }

    private static String read(InputStream in) throws Exception {
        try (in) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }

    @Test
    void aSavedTemplateIsListedWithItsSizeAndReadsBackItsDump() throws Exception {
        DirectoryTemplateStore store = new DirectoryTemplateStore(dir.resolve("templates"));
        assertThat(store.list()).isEmpty();
        assertThat(store.knownNames()).isEqualTo("none");
        TemplateInfo saved = store.save(info("shop-v1", "15"), out -> out.write("CREATE TABLE t (id int);\n".getBytes(StandardCharsets.UTF_8)), false);

        assertThat(saved.sizeBytes()).isEqualTo(25);
        assertThat(store.list()).containsExactly(saved);
        assertThat(store.find("shop-v1")).contains(saved);
        assertThat(read(store.open("shop-v1"))).isEqualTo("CREATE TABLE t (id int);\n");
        assertThat(DirectoryTemplateStore.toJson(saved)).containsOnlyKeys("name", "project", "sandbox", "major", "postgres_version",
                "size_bytes", "created", "schema_digest", "extensions");
        assertThat(Files.readString(dir.resolve("templates/shop-v1.json"))).doesNotContain("CREATE TABLE");
        assertThat(new DirectoryTemplateStore(dir.resolve("templates")).find("shop-v1")).as("read back by a new store").contains(saved);
    }

    @Test
    void aTakenNameIsRefusedUnlessReplacingIsAsked() throws Exception {
        DirectoryTemplateStore store = new DirectoryTemplateStore(dir);
        store.save(info("a", "15"), out -> out.write('1'), false);
        assertThatThrownBy(() -> store.save(info("a", "17"), out -> out.write('2'), false))
                .isInstanceOf(TemplateStore.NameTaken.class).hasMessageContaining("'a' already exists").hasMessageContaining("replace");
        assertThat(read(store.open("a"))).isEqualTo("1");
        store.save(info("a", "17"), out -> out.write('2'), true);
        assertThat(read(store.open("a"))).isEqualTo("2");
        assertThat(store.find("a").orElseThrow().major()).isEqualTo("17");
    }

    @Test
    void aFailedDumpLeavesNoTemplateAndNoPartFile() throws Exception {
        DirectoryTemplateStore store = new DirectoryTemplateStore(dir);
        assertThatThrownBy(() -> store.save(info("broken", "15"), out -> {
            out.write("half".getBytes(StandardCharsets.UTF_8));
            throw new IllegalStateException("pg_dump failed");
        }, false)).hasMessage("pg_dump failed");
        assertThat(store.list()).isEmpty();
        try (var files = Files.list(dir)) {
            assertThat(files).isEmpty();
        }
    }

    @Test
    void deleteRemovesBothFilesAndAnswersWhetherThereWasOne() throws Exception {
        DirectoryTemplateStore store = new DirectoryTemplateStore(dir);
        store.save(info("gone", "15"), out -> out.write('x'), false);
        assertThat(store.delete("gone")).isTrue();
        assertThat(store.delete("gone")).isFalse();
        assertThat(store.find("gone")).isEmpty();
        assertThatThrownBy(() -> store.open("gone")).isInstanceOf(FileNotFoundException.class);
        try (var files = Files.list(dir)) {
            assertThat(files).isEmpty();
        }
    }

    @Test
    void namesThatCouldLeaveTheDirectoryAreNeverUsed() throws Exception {
        DirectoryTemplateStore store = new DirectoryTemplateStore(dir.resolve("t"));
        for (String bad : List.of("../x", "a/b", "A", "", "-x", "x".repeat(31))) {
            assertThat(TemplateInfo.validName(bad)).as(bad).isFalse();
            assertThat(store.find(bad)).isEmpty();
            assertThat(store.delete(bad)).isFalse();
            assertThatThrownBy(() -> store.open(bad)).isInstanceOf(FileNotFoundException.class);
        }
        assertThatThrownBy(() -> store.save(info("../x", "15"), out -> { }, false)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void unreadableMetadataIsLeftOutOfTheList() throws Exception {
        DirectoryTemplateStore store = new DirectoryTemplateStore(dir);
        store.save(info("good", "15"), out -> out.write('x'), false);
        Files.writeString(dir.resolve("bad.json"), "{not json");
        assertThat(store.list()).extracting(TemplateInfo::name).containsExactly("good");
    }

    @Test
    void aTemplateRestoresIntoItsMajorOrNewerOnly() {
        TemplateInfo from15 = info("t", "15");
        assertThat(from15.refusalFor("15", "x")).isEmpty();
        assertThat(from15.refusalFor("17", "x")).isEmpty();
        assertThat(from15.refusalFor("", "x")).as("an unknown major is left to the restore's own check").isEmpty();
        assertThat(info("t", "17").refusalFor("15", "project 'p'")).hasValueSatisfying(why -> assertThat(why)
                .contains("template 't' was saved from PostgreSQL 17", "project 'p' runs PostgreSQL 15", "sandbox_versions"));
    }
}
