//! @file Matrix file parser: header row, labelled (or BLASTZ unlabelled) rows, messages with lines.
#include "engine/scoring/matrix_file.hpp"

#include <sys/stat.h>

#include <cctype>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>
#include <vector>

#include "engine/error.hpp"

namespace chromalign {
namespace {

/// 0..3 for A, C, G, T (either case), -1 for any other label.
int nucleotide(char c) {
    switch (std::toupper(static_cast<unsigned char>(c))) {
    case 'A': return 0;
    case 'C': return 1;
    case 'G': return 2;
    case 'T': return 3;
    default: return -1;
    }
}

bool is_label(const std::string& token) {
    return token.size() == 1 && (std::isalpha(static_cast<unsigned char>(token[0])) || token[0] == '*');
}

class MatrixParser {
public:
    explicit MatrixParser(const std::string& path) : path_(path) {}

    void line(const std::string& raw, int line_no) {
        line_no_ = line_no;
        std::string text = raw.substr(0, raw.find('#'));
        if (text.find('=') != std::string::npos)
            fail("'" + trimmed(text) + "' is a setting, which a matrix file may not hold: give gap costs with "
                 "--gap-open (LASTZ's O + E) and --gap-extend (E)");
        std::istringstream in(text);
        std::vector<std::string> tokens;
        for (std::string t; in >> t;) tokens.push_back(t);
        if (tokens.empty()) return;
        if (columns_.empty())
            header(tokens);
        else
            row(tokens);
    }

    NucleotideMatrix finish() const {
        if (columns_.empty()) throw Error(path_ + ": no header row of column letters (such as 'A C G T')");
        for (int a = 0; a < 4; ++a)
            if (row_line_[a] == 0) throw Error(path_ + ": no row for " + std::string(1, "ACGT"[a]));
        return matrix_;
    }

private:
    static std::string trimmed(const std::string& text) {
        const size_t first = text.find_first_not_of(" \t"), last = text.find_last_not_of(" \t");
        return first == std::string::npos ? "" : text.substr(first, last - first + 1);
    }

    [[noreturn]] void fail(const std::string& what) const {
        throw Error(path_ + ", line " + std::to_string(line_no_) + ": " + what);
    }

    void header(const std::vector<std::string>& tokens) {
        if (!is_label(tokens[0]))
            fail("expected a header row of column letters (such as 'A C G T'), not '" + tokens[0] + "'");
        for (const std::string& t : tokens) {
            if (!is_label(t)) fail("column label '" + t + "' is not one letter");
            const int b = nucleotide(t[0]);
            for (const int seen : columns_)
                if (b >= 0 && seen == b) fail("column " + std::string(1, "ACGT"[b]) + " appears twice");
            columns_.push_back(b);
            labels_ += t[0];
        }
        for (int b = 0; b < 4; ++b) {
            bool found = false;
            for (const int c : columns_) found = found || c == b;
            if (!found) fail("the header has no column for " + std::string(1, "ACGT"[b]));
        }
    }

    void row(const std::vector<std::string>& tokens) {
        const bool labelled = is_label(tokens[0]);
        if (!labelled && rows_ >= columns_.size()) fail("more rows than the header has columns");
        const int a = labelled ? nucleotide(tokens[0][0]) : columns_[rows_];
        const std::string name = labelled ? tokens[0] : std::string(1, labels_[rows_]);
        ++rows_;
        const size_t first = labelled ? 1 : 0;
        if (tokens.size() - first != columns_.size())
            fail("row " + name + " has " + std::to_string(tokens.size() - first) + " scores, the header has " +
                 std::to_string(columns_.size()) + " columns");
        if (a >= 0 && row_line_[a] != 0)
            fail("a second row for " + name + " (the first is on line " + std::to_string(row_line_[a]) + ")");
        for (size_t k = 0; k < columns_.size(); ++k) {
            const int32_t v = score(tokens[first + k], name);
            if (a >= 0 && columns_[k] >= 0) matrix_[a][columns_[k]] = v;
        }
        if (a >= 0) row_line_[a] = line_no_;
    }

    int32_t score(const std::string& token, const std::string& row_name) const {
        errno = 0;
        char* end = nullptr;
        const long long v = std::strtoll(token.c_str(), &end, 10);
        if (end == token.c_str() || *end != '\0') fail("'" + token + "' in row " + row_name + " is not an integer score");
        if (errno == ERANGE || v > kMaxScoreParameter || v < -kMaxScoreParameter)
            fail("score " + token + " in row " + row_name + " lies beyond +-" + std::to_string(kMaxScoreParameter));
        return static_cast<int32_t>(v);
    }

    const std::string& path_;
    int line_no_ = 0;
    std::vector<int> columns_;  ///< per header column: 0..3 for A, C, G, T, -1 for another letter
    std::string labels_;        ///< the header's letters as written
    size_t rows_ = 0;           ///< rows read so far (labelled or not)
    int row_line_[4] = {};      ///< line of the A, C, G, T rows; 0 while missing
    NucleotideMatrix matrix_{};
};

}  // namespace

NucleotideMatrix parse_matrix(const std::string& text, const std::string& path) {
    MatrixParser parser(path);
    std::istringstream in(text);
    int line_no = 0;
    for (std::string line; std::getline(in, line);) {
        if (!line.empty() && line.back() == '\r') line.pop_back();
        parser.line(line, ++line_no);
    }
    return parser.finish();
}

NucleotideMatrix read_matrix_file(const std::string& path) {
    struct stat st{};
    if (stat(path.c_str(), &st) != 0) throw Error(path + ": cannot read matrix file: " + std::strerror(errno));
    if (!S_ISREG(st.st_mode)) throw Error(path + ": cannot read matrix file: not a regular file");
    std::ifstream in(path, std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    if (!in) throw Error(path + ": cannot read matrix file: " + std::strerror(errno));
    return parse_matrix(text.str(), path);
}

}  // namespace chromalign
