package io.roboco.sandbox.mongocompat.text;

import de.bwaldvogel.mongo.backend.Utils;
import de.bwaldvogel.mongo.bson.Document;
import de.bwaldvogel.mongo.exception.MongoServerError;
import io.roboco.sandbox.mongocompat.fidelity.StandIn;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A collection's text index as mongod builds one (version 3): the indexed fields with their weights ({@code $**}:
 * every string in the document), {@code default_language} and {@code language_override}. It scores a document for a
 * {@link TextQuery} with mongod's formula: per field and term, weight × Σ(1, ½, ¼, … per occurrence) ×
 * (½ + ½ · occurrences / field terms), +10 % when the whole field is the term.
 */
public final class TextIndex {
    private final String name;
    private final Map<String, Double> weights;
    private final String defaultLanguage;
    private final String languageOverride;

    private TextIndex(String name, Map<String, Double> weights, String defaultLanguage, String languageOverride) {
        this.name = name;
        this.weights = weights;
        this.defaultLanguage = defaultLanguage;
        this.languageOverride = languageOverride;
    }

    public static boolean isText(Document indexSpec) {
        return indexSpec.get("key") instanceof Document key && key.containsValue("text");
    }

    /** From a {@code createIndexes} entry whose key has {@code "text"} values. */
    public static TextIndex fromSpec(Document spec) {
        Document key = (Document) spec.get("key");
        Map<String, Double> weights = new LinkedHashMap<>();
        for (Map.Entry<String, Object> e : key.entrySet()) {
            if (!"text".equals(e.getValue())) {
                throw StandIn.refuse("compound text indexes (text with '" + e.getKey() + "': " + e.getValue() + ")");
            }
            weights.put(e.getKey(), 1.0);
        }
        if (spec.get("weights") instanceof Document w) {
            for (Map.Entry<String, Object> e : w.entrySet()) {
                if (!(e.getValue() instanceof Number n) || n.doubleValue() < 1 || n.doubleValue() >= 100_000) {
                    throw new MongoServerError(17283, "CannotCreateIndex", "text index weight must be in the exclusive interval (0,100000) but found: " + e.getValue());
                }
                weights.put(e.getKey(), n.doubleValue());
            }
        }
        String language = spec.get("default_language") instanceof String s ? s : "english";
        if (!Analyzer.known(language)) {
            throw new MongoServerError(17262, "CannotCreateIndex", "default_language unsupported: " + language);
        }
        String override = spec.get("language_override") instanceof String s ? s : "language";
        String name = spec.get("name") instanceof String s ? s : null;
        return new TextIndex(name, weights, language, override);
    }

    public String name() {
        return name;
    }

    public String defaultLanguage() {
        return defaultLanguage;
    }

    /** mongod's text score of {@code doc} for {@code query}; 0 when the document does not match. */
    public double score(Document doc, TextQuery query) {
        Analyzer docAnalyzer = Analyzer.forLanguage(doc.get(languageOverride) instanceof String l && Analyzer.known(l) ? l : defaultLanguage);
        Analyzer queryAnalyzer = Analyzer.forLanguage(query.language() != null ? query.language() : defaultLanguage);
        List<String> positive = stems(query.terms(), queryAnalyzer);
        List<String> negative = stems(query.negatedTerms(), queryAnalyzer);
        for (String phrase : query.phrases()) {
            positive.addAll(stems(Analyzer.words(phrase), queryAnalyzer));
        }
        List<Map.Entry<String, Double>> texts = new ArrayList<>();
        collect(doc, texts);
        StringBuilder all = new StringBuilder();
        Map<String, Double> termScores = new HashMap<>();
        for (Map.Entry<String, Double> field : texts) {
            all.append(' ').append(String.join(" ", Analyzer.words(field.getKey()))).append(' ');
            List<String> terms = docAnalyzer.terms(field.getKey());
            for (String t : negative) {
                if (terms.contains(t)) {
                    return 0;
                }
            }
            scoreField(field.getKey(), terms, field.getValue(), termScores);
        }
        String folded = all.toString();
        for (String phrase : query.negatedPhrases()) {
            if (folded.contains(" " + String.join(" ", Analyzer.words(phrase)) + " ")) {
                return 0;
            }
        }
        for (String phrase : query.phrases()) {
            if (!folded.contains(" " + String.join(" ", Analyzer.words(phrase)) + " ")) {
                return 0;
            }
        }
        double score = 0;
        for (String term : positive.stream().distinct().toList()) {
            score += termScores.getOrDefault(term, 0.0);
        }
        return score;
    }

    private static void scoreField(String raw, List<String> terms, double weight, Map<String, Double> termScores) {
        if (terms.isEmpty()) {
            return;
        }
        Map<String, double[]> perTerm = new LinkedHashMap<>(); // term -> {freq, count, exp}
        for (String t : terms) {
            double[] d = perTerm.computeIfAbsent(t, k -> new double[] {0, 0, 1});
            d[0] += 1 / d[2];
            d[2] *= 2;
            d[1] += 1;
        }
        for (Map.Entry<String, double[]> e : perTerm.entrySet()) {
            double[] d = e.getValue();
            double coeff = (0.5 * d[1] / terms.size()) + 0.5;
            double adjustment = raw.equalsIgnoreCase(e.getKey()) ? 1.1 : 1;
            termScores.merge(e.getKey(), weight * d[0] * coeff * adjustment, Double::sum);
        }
    }

    private void collect(Document doc, List<Map.Entry<String, Double>> out) {
        for (Map.Entry<String, Double> w : weights.entrySet()) {
            if (w.getKey().equals("$**")) {
                allStrings(doc, w.getValue(), out);
            } else {
                strings(Utils.getSubdocumentValueCollectionAware(doc, w.getKey()), w.getValue(), out);
            }
        }
    }

    private static void strings(Object value, double weight, List<Map.Entry<String, Double>> out) {
        if (value instanceof String s) {
            out.add(Map.entry(s, weight));
        } else if (value instanceof List<?> list) {
            list.forEach(v -> strings(v, weight, out));
        }
    }

    private static void allStrings(Object value, double weight, List<Map.Entry<String, Double>> out) {
        if (value instanceof Document d) {
            d.values().forEach(v -> allStrings(v, weight, out));
        } else {
            strings(value, weight, out);
            if (value instanceof List<?> list) {
                list.stream().filter(Document.class::isInstance).forEach(v -> allStrings(v, weight, out));
            }
        }
    }

    private static List<String> stems(List<String> words, Analyzer analyzer) {
        List<String> out = new ArrayList<>();
        for (String w : words) {
            for (String word : Analyzer.words(w)) {
                if (!analyzer.isStopWord(word)) {
                    out.add(analyzer.stem(word));
                }
            }
        }
        return out;
    }
}
