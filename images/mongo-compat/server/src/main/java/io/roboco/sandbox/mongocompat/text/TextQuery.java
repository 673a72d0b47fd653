package io.roboco.sandbox.mongocompat.text;

import de.bwaldvogel.mongo.backend.Utils;
import de.bwaldvogel.mongo.bson.Document;
import de.bwaldvogel.mongo.exception.MongoServerError;
import io.roboco.sandbox.mongocompat.fidelity.StandIn;
import java.util.ArrayList;
import java.util.List;

/**
 * A {@code $text} query: {@code $search} split as mongod splits it — words (any may match), {@code "quoted
 * phrases"} (all must match), {@code -negated} words and phrases (none may match) — and {@code $language}.
 * {@code $caseSensitive} / {@code $diacriticSensitive} true are refused (version 3 indexes fold both).
 */
public record TextQuery(List<String> terms, List<String> phrases, List<String> negatedTerms, List<String> negatedPhrases,
        String language) {

    public static TextQuery parse(Object spec) {
        if (!(spec instanceof Document text) || !(text.get("$search") instanceof String search)) {
            throw new MongoServerError(2, "BadValue", "$search needs a String");
        }
        if (Utils.isTrue(text.get("$caseSensitive"))) {
            throw StandIn.refuse("$text with $caseSensitive: true");
        }
        if (Utils.isTrue(text.get("$diacriticSensitive"))) {
            throw StandIn.refuse("$text with $diacriticSensitive: true");
        }
        String language = text.get("$language") instanceof String l ? l : null;
        if (language != null && !Analyzer.known(language)) {
            throw new MongoServerError(17262, "BadValue", "language override unsupported: " + language);
        }
        List<String> terms = new ArrayList<>();
        List<String> phrases = new ArrayList<>();
        List<String> negatedTerms = new ArrayList<>();
        List<String> negatedPhrases = new ArrayList<>();
        int i = 0;
        while (i < search.length()) {
            char c = search.charAt(i);
            if (Character.isWhitespace(c)) {
                i++;
                continue;
            }
            boolean negated = c == '-' && i + 1 < search.length() && !Character.isWhitespace(search.charAt(i + 1));
            int start = negated ? i + 1 : i;
            if (start < search.length() && search.charAt(start) == '"') {
                int end = search.indexOf('"', start + 1);
                end = end < 0 ? search.length() : end;
                (negated ? negatedPhrases : phrases).add(search.substring(start + 1, end));
                i = end + 1;
            } else {
                int end = start;
                while (end < search.length() && !Character.isWhitespace(search.charAt(end)) && search.charAt(end) != '"') {
                    end++;
                }
                List<String> words = Analyzer.words(search.substring(start, end));
                if (negated && !words.isEmpty()) {
                    negatedTerms.add(words.get(0));
                    terms.addAll(words.subList(1, words.size()));
                } else {
                    terms.addAll(words);
                }
                i = end;
            }
        }
        return new TextQuery(terms, phrases, negatedTerms, negatedPhrases, language);
    }
}
