/* lto1.c: ThinLTO; imports lto_entry from lto2.c which references a static there */
int lto_entry(int);
int main(int argc, char **argv) { (void)argv; return lto_entry(argc * 40) & 0xff; }
