#include <cstdio>
#include <cstdlib>

struct Shape {
  virtual ~Shape() = default;
  virtual double area() const = 0;
};
struct Square : Shape {
  double s;
  explicit Square(double v) : s(v) {}
  double area() const override { return s * s; }
};
struct Circle : Shape {
  double r;
  explicit Circle(double v) : r(v) {}
  double area() const override { return 3.14159 * r * r; }
};

__attribute__((noinline)) double total(Shape **shapes, int n) {
  double t = 0;
  for (int i = 0; i < n; i++) {
    if (shapes[i]->area() > 10.0)
      t += shapes[i]->area();
    else
      t -= 1.0;
  }
  return t;
}

int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 64;
  Shape **shapes = new Shape *[n];
  for (int i = 0; i < n; i++)
    shapes[i] = (i % 4 == 0) ? static_cast<Shape *>(new Circle(i)) : new Square(i);
  printf("%f\n", total(shapes, n));
  return 0;
}
