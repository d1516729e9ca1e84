package dev.limiter.autoconfigure;

import java.util.Locale;
import java.util.Set;

import org.jspecify.annotations.Nullable;

/** Finds the name someone probably meant, for messages about a name that nothing uses. */
final class Misspelling {

    private Misspelling() {
    }

    /**
     * The name in {@code names} closest to {@code name}, compared without case and separators, when it
     * is close enough to be a misspelling (at most two edits, and one per three letters); null otherwise.
     */
    static @Nullable String closest(String name, Set<String> names) {
        String bare = bare(name);
        String closest = null;
        int best = Integer.MAX_VALUE;
        for (String candidate : names) {
            String other = bare(candidate);
            int distance = editDistance(bare, other);
            int allowed = Math.min(2, Math.max(1, Math.max(bare.length(), other.length()) / 3));
            if (distance <= allowed && distance < best) {
                best = distance;
                closest = candidate;
            }
        }
        return closest;
    }

    private static String bare(String name) {
        return name.toLowerCase(Locale.ROOT).replaceAll("[-_.]", "");
    }

    /** Levenshtein's distance: the fewest insertions, deletions and substitutions that turn {@code a} into {@code b}. */
    private static int editDistance(String a, String b) {
        int[] previous = new int[b.length() + 1];
        int[] current = new int[b.length() + 1];
        for (int j = 0; j <= b.length(); j++) {
            previous[j] = j;
        }
        for (int i = 1; i <= a.length(); i++) {
            current[0] = i;
            for (int j = 1; j <= b.length(); j++) {
                int substitution = previous[j - 1] + ((a.charAt(i - 1) == b.charAt(j - 1)) ? 0 : 1);
                current[j] = Math.min(substitution, Math.min(previous[j], current[j - 1]) + 1);
            }
            int[] swap = previous;
            previous = current;
            current = swap;
        }
        return previous[b.length()];
    }
}
