// Deep recursion: a recursive-descent parser of generated arithmetic expressions builds an
// AST (heap nodes with std::string and std::vector members), folds its constants into a new
// tree and evaluates it, all recursively. Expressions nest up to a few hundred levels, and
// each level is four parser frames (expr, term, unary, primary), so allocation stacks are
// hundreds of frames deep and mostly one short cycle repeated: the case recursion folding
// (MEMPROF_OPTIONS=fold_recursion=1) is for. Profile it with malloc_context_size=255, or
// the depth limit cuts the contexts long before the recursion ends.
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

namespace {

unsigned g_seed = 12345;
unsigned next_random(unsigned bound) {
  g_seed = g_seed * 1103515245u + 12345u;
  return (g_seed >> 8) % bound;
}

// An expression nesting `depth` levels deep: at every level one operand is the deeper
// expression, mostly the left one (as generated or hand-written left-associative code is),
// the others are atoms, so the text stays linear in the depth.
void generate(int depth, std::string& out) {
  static const char* const kNames[] = {"x", "y", "zeta", "count", "n"};
  auto atom = [&out] {
    if (next_random(3) == 0)
      out += kNames[next_random(5)];
    else
      out += std::to_string(next_random(100) + 1);
  };
  if (depth == 0) return atom();
  static const char kOps[] = "+-*+";
  const char op = kOps[next_random(4)];
  switch (next_random(10)) {
    case 0:  // a unary minus
      out += "-(";
      generate(depth - 1, out);
      out += ')';
      break;
    case 1:  // a call
      out += "max(";
      generate(depth - 1, out);
      out += ", ";
      atom();
      out += ')';
      break;
    case 2:  // the deeper operand on the right
      atom();
      out += op;
      out += '(';
      generate(depth - 1, out);
      out += ')';
      break;
    default:
      out += '(';
      generate(depth - 1, out);
      out += ')';
      out += op;
      atom();
  }
}

struct Node {
  char kind;         // 'n' number, 'v' variable, 'c' call, or the operator
  std::string text;  // the variable or function name
  long value = 0;
  std::vector<std::unique_ptr<Node>> kids;
};
using Ptr = std::unique_ptr<Node>;

Ptr make(char kind, std::string text = {}, long value = 0) {
  auto n = std::make_unique<Node>();
  n->kind = kind;
  n->text = std::move(text);
  n->value = value;
  return n;
}

class Parser {
 public:
  explicit Parser(const std::string& s) : s_(s) {}

  // expr := term (('+' | '-') term)*
  __attribute__((noinline)) Ptr expr() {
    Ptr left = term();
    while (peek() == '+' || peek() == '-') {
      const char op = s_[at_++];
      Ptr n = make(op);
      n->kids.push_back(std::move(left));
      n->kids.push_back(term());
      left = std::move(n);
    }
    return left;
  }

 private:
  // term := unary (('*' | '/') unary)*
  __attribute__((noinline)) Ptr term() {
    Ptr left = unary();
    while (peek() == '*' || peek() == '/') {
      const char op = s_[at_++];
      Ptr n = make(op);
      n->kids.push_back(std::move(left));
      n->kids.push_back(unary());
      left = std::move(n);
    }
    return left;
  }
  // unary := '-' unary | primary
  __attribute__((noinline)) Ptr unary() {
    if (peek() != '-') return primary();
    ++at_;
    Ptr n = make('~');
    n->kids.push_back(unary());
    return n;
  }
  // primary := number | name | name '(' expr (',' expr)* ')' | '(' expr ')'
  __attribute__((noinline)) Ptr primary() {
    const char c = peek();
    if (c == '(') {
      ++at_;
      Ptr inner = expr();
      ++at_;  // ')'
      return inner;
    }
    if (c >= '0' && c <= '9') {
      long v = 0;
      while (at_ < s_.size() && s_[at_] >= '0' && s_[at_] <= '9') v = v * 10 + (s_[at_++] - '0');
      return make('n', {}, v);
    }
    std::string name;
    while (at_ < s_.size() && s_[at_] >= 'a' && s_[at_] <= 'z') name += s_[at_++];
    if (peek() != '(') return make('v', std::move(name));
    ++at_;
    Ptr call = make('c', std::move(name));
    do {
      if (peek() == ',') ++at_;
      call->kids.push_back(expr());
    } while (peek() == ',');
    ++at_;  // ')'
    return call;
  }
  char peek() {
    while (at_ < s_.size() && s_[at_] == ' ') ++at_;
    return at_ < s_.size() ? s_[at_] : '\0';
  }

  const std::string& s_;
  size_t at_ = 0;
};

long apply(char op, long a, long b) {
  switch (op) {
    case '+': return a + b;
    case '-': return a - b;
    case '*': return (a * b) % 1000003;
    default: return b != 0 ? a / b : 0;
  }
}

// A new tree with every constant subtree replaced by its value (a fresh node: the input
// tree is kept, as a compiler keeps the parse tree).
__attribute__((noinline)) Ptr fold(const Node& n) {
  if (n.kind == 'n' || n.kind == 'v') return make(n.kind, n.text, n.value);
  Ptr out = make(n.kind, n.text);
  bool constant = n.kind != 'c';
  for (const Ptr& k : n.kids) {
    out->kids.push_back(fold(*k));
    constant = constant && out->kids.back()->kind == 'n';
  }
  if (!constant) return out;
  const long a = out->kids[0]->value;
  return make('n', {}, n.kind == '~' ? -a : apply(n.kind, a, out->kids[1]->value));
}

__attribute__((noinline)) long evaluate(const Node& n, long x) {
  switch (n.kind) {
    case 'n': return n.value;
    case 'v': return x + static_cast<long>(n.text.size());
    case '~': return -evaluate(*n.kids[0], x);
    case 'c': {
      long best = evaluate(*n.kids[0], x);
      for (size_t i = 1; i < n.kids.size(); ++i) best = std::max(best, evaluate(*n.kids[i], x));
      return best;
    }
    default: return apply(n.kind, evaluate(*n.kids[0], x), evaluate(*n.kids[1], x));
  }
}

}  // namespace

int main(int argc, char** argv) {
  // A fixed set of expressions parsed over and over, as a compiler meets the same shapes
  // of code again: the contexts repeat, so the profile's size measures the contexts.
  const int rounds = argc > 1 ? std::atoi(argv[1]) : 100;
  constexpr int kExpressions = 40;
  std::vector<std::string> texts(kExpressions);
  for (std::string& text : texts) generate(50 + static_cast<int>(next_random(251)), text);  // 50..300 deep
  long total = 0;
  for (int r = 0; r < rounds; ++r)
    for (const std::string& text : texts) {
      Parser parser(text);
      const Ptr tree = parser.expr();
      const Ptr folded = fold(*tree);
      total += evaluate(*folded, r) % 1000;
    }
  std::printf("%ld\n", total);
  return 0;
}
