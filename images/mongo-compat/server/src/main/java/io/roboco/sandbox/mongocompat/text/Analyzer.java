package io.roboco.sandbox.mongocompat.text;

import de.bwaldvogel.mongo.exception.MongoServerError;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.text.Normalizer;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;
import java.util.regex.Pattern;
import org.tartarus.snowball.SnowballStemmer;
import org.tartarus.snowball.ext.DanishStemmer;
import org.tartarus.snowball.ext.DutchStemmer;
import org.tartarus.snowball.ext.EnglishStemmer;
import org.tartarus.snowball.ext.FinnishStemmer;
import org.tartarus.snowball.ext.FrenchStemmer;
import org.tartarus.snowball.ext.GermanStemmer;
import org.tartarus.snowball.ext.HungarianStemmer;
import org.tartarus.snowball.ext.ItalianStemmer;
import org.tartarus.snowball.ext.NorwegianStemmer;
import org.tartarus.snowball.ext.PortugueseStemmer;
import org.tartarus.snowball.ext.RomanianStemmer;
import org.tartarus.snowball.ext.RussianStemmer;
import org.tartarus.snowball.ext.SpanishStemmer;
import org.tartarus.snowball.ext.SwedishStemmer;
import org.tartarus.snowball.ext.TurkishStemmer;

/**
 * mongod's text analysis (text index version 3): split on anything that is not a letter or digit, fold case and
 * diacritics, drop the language's stop words, stem with the Snowball stemmer mongod uses. Languages are mongod's
 * (by name or ISO code); {@code none} only tokenises.
 */
final class Analyzer {
    private static final Pattern DELIMITERS = Pattern.compile("[^\\p{L}\\p{N}]+");
    private static final Pattern MARKS = Pattern.compile("\\p{M}+");

    private record Language(String name, Supplier<SnowballStemmer> stemmer) {
    }

    private static final Map<String, Language> LANGUAGES = languages();
    private static final Map<String, Analyzer> CACHE = new ConcurrentHashMap<>();

    private final Supplier<SnowballStemmer> stemmer;
    private final Set<String> stopWords;

    private Analyzer(Language language) {
        this.stemmer = language.stemmer();
        this.stopWords = language.stemmer() == null ? Set.of() : stopWords(language.name());
    }

    /** The analyzer for mongod language name or code {@code language}; an unknown one is mongod's error 17262. */
    static Analyzer forLanguage(String language) {
        Language l = LANGUAGES.get(language.toLowerCase(Locale.ROOT));
        if (l == null) {
            throw new MongoServerError(17262, "BadValue", "language override unsupported: " + language);
        }
        return CACHE.computeIfAbsent(l.name(), n -> new Analyzer(l));
    }

    static boolean known(String language) {
        return LANGUAGES.containsKey(language.toLowerCase(Locale.ROOT));
    }

    /** Lower-cased, diacritic-free words of {@code text}, stop words included (the caller decides). */
    static List<String> words(String text) {
        String folded = MARKS.matcher(Normalizer.normalize(text, Normalizer.Form.NFD)).replaceAll("").toLowerCase(Locale.ROOT);
        List<String> words = new ArrayList<>();
        for (String w : DELIMITERS.split(folded)) {
            if (!w.isEmpty()) {
                words.add(w);
            }
        }
        return words;
    }

    /** The index terms of {@code text}: words less stop words, stemmed. */
    List<String> terms(String text) {
        List<String> terms = new ArrayList<>();
        for (String w : words(text)) {
            if (!stopWords.contains(w)) {
                terms.add(stem(w));
            }
        }
        return terms;
    }

    boolean isStopWord(String word) {
        return stopWords.contains(word);
    }

    String stem(String word) {
        if (stemmer == null) {
            return word;
        }
        SnowballStemmer s = stemmer.get();
        s.setCurrent(word);
        s.stem();
        return s.getCurrent();
    }

    private static Set<String> stopWords(String language) {
        String resource = "/org/apache/lucene/analysis/snowball/" + language + "_stop.txt";
        Set<String> words = new HashSet<>();
        try (InputStream in = Analyzer.class.getResourceAsStream(resource)) {
            if (in == null) {
                return Set.of();
            }
            BufferedReader reader = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8));
            for (String line = reader.readLine(); line != null; line = reader.readLine()) {
                int comment = line.indexOf('|');
                String content = comment < 0 ? line : line.substring(0, comment);
                for (String w : content.trim().split("\\s+")) {
                    if (!w.isEmpty()) {
                        words.addAll(words(w));
                    }
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return Set.copyOf(words);
    }

    private static Map<String, Language> languages() {
        Map<String, Language> map = new ConcurrentHashMap<>();
        add(map, "danish", DanishStemmer::new, "da");
        add(map, "dutch", DutchStemmer::new, "nl");
        add(map, "english", EnglishStemmer::new, "en");
        add(map, "finnish", FinnishStemmer::new, "fi");
        add(map, "french", FrenchStemmer::new, "fr");
        add(map, "german", GermanStemmer::new, "de");
        add(map, "hungarian", HungarianStemmer::new, "hu");
        add(map, "italian", ItalianStemmer::new, "it");
        add(map, "norwegian", NorwegianStemmer::new, "nb");
        add(map, "portuguese", PortugueseStemmer::new, "pt");
        add(map, "romanian", RomanianStemmer::new, "ro");
        add(map, "russian", RussianStemmer::new, "ru");
        add(map, "spanish", SpanishStemmer::new, "es");
        add(map, "swedish", SwedishStemmer::new, "sv");
        add(map, "turkish", TurkishStemmer::new, "tr");
        Language none = new Language("none", null);
        map.put("none", none);
        return map;
    }

    private static void add(Map<String, Language> map, String name, Supplier<SnowballStemmer> stemmer, String code) {
        Language l = new Language(name, stemmer);
        map.put(name, l);
        map.put(code, l);
    }
}
