package dev.rigorbench.demo.lib;

/**
 * A tiny number-crunching library: the "code under test" of the demo.
 *
 * <p>This is version 2 (the contender). Compared with version 1:
 * <ul>
 *   <li>{@link #sumCsv(String)} now checks every character of its input before
 *       parsing it (a second pass over the whole line: slower);</li>
 *   <li>{@link #countPrimes(int, int)} uses a better trial-division scheme
 *       (about a third fewer divisions: faster);</li>
 *   <li>{@link #mean}, {@link #variance} and {@link #standardize} are unchanged.</li>
 * </ul>
 */
public final class Numbers {

    private Numbers() {
    }

    /**
     * Parses a line of comma-separated decimal integers such as {@code "12,-7,40"}
     * and returns their sum.
     */
    public static long sumCsv(String line) {
        // CHANGED in v2: malformed input used to be parsed into garbage silently.
        // Now the line is checked first (see checkCsv), which costs a second pass
        // over every character before the real parse.
        checkCsv(line);
        long total = 0;
        long current = 0;
        boolean negative = false;
        for (int i = 0, n = line.length(); i < n; i++) {
            char c = line.charAt(i);
            if (c == ',') {
                total += negative ? -current : current;
                current = 0;
                negative = false;
            } else if (c == '-') {
                negative = true;
            } else {
                current = current * 10 + (c - '0');
            }
        }
        return total + (negative ? -current : current);
    }

    /**
     * NEW in v2: every character must be a digit, '-' or ','. This catches the common
     * mistakes (a header row, a JSON document, a tab-separated file) before they are
     * parsed into garbage, at the cost of a second pass over the line.
     *
     * @throws IllegalArgumentException if the line is not numeric CSV
     */
    static void checkCsv(String line) {
        for (int i = 0, n = line.length(); i < n; i++) {
            char c = line.charAt(i);
            if ((c < '0' || c > '9') && c != ',' && c != '-') {
                throw new IllegalArgumentException("not numeric CSV: unexpected '" + c + "' at index " + i);
            }
        }
    }

    /** Counts the primes in {@code [from, to)}. */
    public static int countPrimes(int from, int to) {
        int count = 0;
        for (int n = from; n < to; n++) {
            if (isPrime(n)) {
                count++;
            }
        }
        return count;
    }

    /**
     * CHANGED in v2: a 6k+-1 wheel. After ruling out multiples of 2 and 3, any
     * further prime factor has the form 6k-1 or 6k+1, so the divisors tried are
     * 5, 7, 11, 13, 17, 19, ... (alternating steps of 2 and 4): two out of every
     * six numbers instead of the three odd ones tried by v1, i.e. a third fewer
     * divisions for the same answer.
     */
    static boolean isPrime(int n) {
        if (n < 4) {
            return n >= 2;
        }
        if (n % 2 == 0 || n % 3 == 0) {
            return false;
        }
        for (int d = 5, step = 2; d * d <= n; d += step, step = 6 - step) {
            if (n % d == 0) {
                return false;
            }
        }
        return true;
    }

    /** Arithmetic mean; rejects an empty array. */
    public static double mean(double[] values) {
        if (values.length == 0) {
            throw new IllegalArgumentException("mean of an empty array");
        }
        double sum = 0;
        for (double v : values) {
            sum += v;
        }
        return sum / values.length;
    }

    /** Sample variance (two-pass algorithm); rejects arrays with fewer than two values. */
    public static double variance(double[] values) {
        if (values.length < 2) {
            throw new IllegalArgumentException("variance needs at least two values, got " + values.length);
        }
        double m = mean(values);
        double squares = 0;
        for (double v : values) {
            double d = v - m;
            squares += d * d;
        }
        return squares / (values.length - 1);
    }

    /**
     * Standard scores: a new array holding {@code (v - mean) / standardDeviation} for
     * every value. Allocates the result (so it shows up in JMH's {@code -prof gc}).
     */
    public static double[] standardize(double[] values) {
        double m = mean(values);
        double scale = 1 / Math.sqrt(variance(values));
        double[] z = new double[values.length];
        for (int i = 0; i < values.length; i++) {
            z[i] = (values[i] - m) * scale;
        }
        return z;
    }
}
