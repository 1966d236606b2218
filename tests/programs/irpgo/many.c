#include <stdio.h>
#include <stdlib.h>
static __attribute__((noinline)) int f0(int x) { if (x & 1) return x + 0; return x - 0; }
__attribute__((noinline)) int f1(int x) { if (x & 2) return x + 1; return x - 1; }
__attribute__((noinline)) int f2(int x) { if (x & 4) return x + 2; return x - 2; }
__attribute__((noinline)) int f3(int x) { if (x & 8) return x + 3; return x - 3; }
__attribute__((noinline)) int f4(int x) { if (x & 16) return x + 4; return x - 4; }
static __attribute__((noinline)) int f5(int x) { if (x & 32) return x + 5; return x - 5; }
__attribute__((noinline)) int f6(int x) { if (x & 64) return x + 6; return x - 6; }
__attribute__((noinline)) int f7(int x) { if (x & 1) return x + 7; return x - 7; }
__attribute__((noinline)) int f8(int x) { if (x & 2) return x + 8; return x - 8; }
__attribute__((noinline)) int f9(int x) { if (x & 4) return x + 9; return x - 9; }
static __attribute__((noinline)) int f10(int x) { if (x & 8) return x + 10; return x - 10; }
__attribute__((noinline)) int f11(int x) { if (x & 16) return x + 11; return x - 11; }
__attribute__((noinline)) int f12(int x) { if (x & 32) return x + 12; return x - 12; }
__attribute__((noinline)) int f13(int x) { if (x & 64) return x + 13; return x - 13; }
__attribute__((noinline)) int f14(int x) { if (x & 1) return x + 14; return x - 14; }
static __attribute__((noinline)) int f15(int x) { if (x & 2) return x + 15; return x - 15; }
__attribute__((noinline)) int f16(int x) { if (x & 4) return x + 16; return x - 16; }
__attribute__((noinline)) int f17(int x) { if (x & 8) return x + 17; return x - 17; }
__attribute__((noinline)) int f18(int x) { if (x & 16) return x + 18; return x - 18; }
__attribute__((noinline)) int f19(int x) { if (x & 32) return x + 19; return x - 19; }
static __attribute__((noinline)) int f20(int x) { if (x & 64) return x + 20; return x - 20; }
__attribute__((noinline)) int f21(int x) { if (x & 1) return x + 21; return x - 21; }
__attribute__((noinline)) int f22(int x) { if (x & 2) return x + 22; return x - 22; }
__attribute__((noinline)) int f23(int x) { if (x & 4) return x + 23; return x - 23; }
__attribute__((noinline)) int f24(int x) { if (x & 8) return x + 24; return x - 24; }
static __attribute__((noinline)) int f25(int x) { if (x & 16) return x + 25; return x - 25; }
__attribute__((noinline)) int f26(int x) { if (x & 32) return x + 26; return x - 26; }
__attribute__((noinline)) int f27(int x) { if (x & 64) return x + 27; return x - 27; }
__attribute__((noinline)) int f28(int x) { if (x & 1) return x + 28; return x - 28; }
__attribute__((noinline)) int f29(int x) { if (x & 2) return x + 29; return x - 29; }
static __attribute__((noinline)) int f30(int x) { if (x & 4) return x + 30; return x - 30; }
__attribute__((noinline)) int f31(int x) { if (x & 8) return x + 31; return x - 31; }
__attribute__((noinline)) int f32(int x) { if (x & 16) return x + 32; return x - 32; }
__attribute__((noinline)) int f33(int x) { if (x & 32) return x + 33; return x - 33; }
__attribute__((noinline)) int f34(int x) { if (x & 64) return x + 34; return x - 34; }
static __attribute__((noinline)) int f35(int x) { if (x & 1) return x + 35; return x - 35; }
__attribute__((noinline)) int f36(int x) { if (x & 2) return x + 36; return x - 36; }
__attribute__((noinline)) int f37(int x) { if (x & 4) return x + 37; return x - 37; }
__attribute__((noinline)) int f38(int x) { if (x & 8) return x + 38; return x - 38; }
__attribute__((noinline)) int f39(int x) { if (x & 16) return x + 39; return x - 39; }
static __attribute__((noinline)) int f40(int x) { if (x & 32) return x + 40; return x - 40; }
__attribute__((noinline)) int f41(int x) { if (x & 64) return x + 41; return x - 41; }
__attribute__((noinline)) int f42(int x) { if (x & 1) return x + 42; return x - 42; }
__attribute__((noinline)) int f43(int x) { if (x & 2) return x + 43; return x - 43; }
__attribute__((noinline)) int f44(int x) { if (x & 4) return x + 44; return x - 44; }
static __attribute__((noinline)) int f45(int x) { if (x & 8) return x + 45; return x - 45; }
__attribute__((noinline)) int f46(int x) { if (x & 16) return x + 46; return x - 46; }
__attribute__((noinline)) int f47(int x) { if (x & 32) return x + 47; return x - 47; }
__attribute__((noinline)) int f48(int x) { if (x & 64) return x + 48; return x - 48; }
__attribute__((noinline)) int f49(int x) { if (x & 1) return x + 49; return x - 49; }
static __attribute__((noinline)) int f50(int x) { if (x & 2) return x + 50; return x - 50; }
__attribute__((noinline)) int f51(int x) { if (x & 4) return x + 51; return x - 51; }
__attribute__((noinline)) int f52(int x) { if (x & 8) return x + 52; return x - 52; }
__attribute__((noinline)) int f53(int x) { if (x & 16) return x + 53; return x - 53; }
__attribute__((noinline)) int f54(int x) { if (x & 32) return x + 54; return x - 54; }
static __attribute__((noinline)) int f55(int x) { if (x & 64) return x + 55; return x - 55; }
__attribute__((noinline)) int f56(int x) { if (x & 1) return x + 56; return x - 56; }
__attribute__((noinline)) int f57(int x) { if (x & 2) return x + 57; return x - 57; }
__attribute__((noinline)) int f58(int x) { if (x & 4) return x + 58; return x - 58; }
__attribute__((noinline)) int f59(int x) { if (x & 8) return x + 59; return x - 59; }
static __attribute__((noinline)) int f60(int x) { if (x & 16) return x + 60; return x - 60; }
__attribute__((noinline)) int f61(int x) { if (x & 32) return x + 61; return x - 61; }
__attribute__((noinline)) int f62(int x) { if (x & 64) return x + 62; return x - 62; }
__attribute__((noinline)) int f63(int x) { if (x & 1) return x + 63; return x - 63; }
__attribute__((noinline)) int f64(int x) { if (x & 2) return x + 64; return x - 64; }
static __attribute__((noinline)) int f65(int x) { if (x & 4) return x + 65; return x - 65; }
__attribute__((noinline)) int f66(int x) { if (x & 8) return x + 66; return x - 66; }
__attribute__((noinline)) int f67(int x) { if (x & 16) return x + 67; return x - 67; }
__attribute__((noinline)) int f68(int x) { if (x & 32) return x + 68; return x - 68; }
__attribute__((noinline)) int f69(int x) { if (x & 64) return x + 69; return x - 69; }
static __attribute__((noinline)) int f70(int x) { if (x & 1) return x + 70; return x - 70; }
__attribute__((noinline)) int f71(int x) { if (x & 2) return x + 71; return x - 71; }
__attribute__((noinline)) int f72(int x) { if (x & 4) return x + 72; return x - 72; }
__attribute__((noinline)) int f73(int x) { if (x & 8) return x + 73; return x - 73; }
__attribute__((noinline)) int f74(int x) { if (x & 16) return x + 74; return x - 74; }
static __attribute__((noinline)) int f75(int x) { if (x & 32) return x + 75; return x - 75; }
__attribute__((noinline)) int f76(int x) { if (x & 64) return x + 76; return x - 76; }
__attribute__((noinline)) int f77(int x) { if (x & 1) return x + 77; return x - 77; }
__attribute__((noinline)) int f78(int x) { if (x & 2) return x + 78; return x - 78; }
__attribute__((noinline)) int f79(int x) { if (x & 4) return x + 79; return x - 79; }
static __attribute__((noinline)) int f80(int x) { if (x & 8) return x + 80; return x - 80; }
__attribute__((noinline)) int f81(int x) { if (x & 16) return x + 81; return x - 81; }
__attribute__((noinline)) int f82(int x) { if (x & 32) return x + 82; return x - 82; }
__attribute__((noinline)) int f83(int x) { if (x & 64) return x + 83; return x - 83; }
__attribute__((noinline)) int f84(int x) { if (x & 1) return x + 84; return x - 84; }
static __attribute__((noinline)) int f85(int x) { if (x & 2) return x + 85; return x - 85; }
__attribute__((noinline)) int f86(int x) { if (x & 4) return x + 86; return x - 86; }
__attribute__((noinline)) int f87(int x) { if (x & 8) return x + 87; return x - 87; }
__attribute__((noinline)) int f88(int x) { if (x & 16) return x + 88; return x - 88; }
__attribute__((noinline)) int f89(int x) { if (x & 32) return x + 89; return x - 89; }
static __attribute__((noinline)) int f90(int x) { if (x & 64) return x + 90; return x - 90; }
__attribute__((noinline)) int f91(int x) { if (x & 1) return x + 91; return x - 91; }
__attribute__((noinline)) int f92(int x) { if (x & 2) return x + 92; return x - 92; }
__attribute__((noinline)) int f93(int x) { if (x & 4) return x + 93; return x - 93; }
__attribute__((noinline)) int f94(int x) { if (x & 8) return x + 94; return x - 94; }
static __attribute__((noinline)) int f95(int x) { if (x & 16) return x + 95; return x - 95; }
__attribute__((noinline)) int f96(int x) { if (x & 32) return x + 96; return x - 96; }
__attribute__((noinline)) int f97(int x) { if (x & 64) return x + 97; return x - 97; }
__attribute__((noinline)) int f98(int x) { if (x & 1) return x + 98; return x - 98; }
__attribute__((noinline)) int f99(int x) { if (x & 2) return x + 99; return x - 99; }
static __attribute__((noinline)) int f100(int x) { if (x & 4) return x + 100; return x - 100; }
__attribute__((noinline)) int f101(int x) { if (x & 8) return x + 101; return x - 101; }
__attribute__((noinline)) int f102(int x) { if (x & 16) return x + 102; return x - 102; }
__attribute__((noinline)) int f103(int x) { if (x & 32) return x + 103; return x - 103; }
__attribute__((noinline)) int f104(int x) { if (x & 64) return x + 104; return x - 104; }
static __attribute__((noinline)) int f105(int x) { if (x & 1) return x + 105; return x - 105; }
__attribute__((noinline)) int f106(int x) { if (x & 2) return x + 106; return x - 106; }
__attribute__((noinline)) int f107(int x) { if (x & 4) return x + 107; return x - 107; }
__attribute__((noinline)) int f108(int x) { if (x & 8) return x + 108; return x - 108; }
__attribute__((noinline)) int f109(int x) { if (x & 16) return x + 109; return x - 109; }
static __attribute__((noinline)) int f110(int x) { if (x & 32) return x + 110; return x - 110; }
__attribute__((noinline)) int f111(int x) { if (x & 64) return x + 111; return x - 111; }
__attribute__((noinline)) int f112(int x) { if (x & 1) return x + 112; return x - 112; }
__attribute__((noinline)) int f113(int x) { if (x & 2) return x + 113; return x - 113; }
__attribute__((noinline)) int f114(int x) { if (x & 4) return x + 114; return x - 114; }
static __attribute__((noinline)) int f115(int x) { if (x & 8) return x + 115; return x - 115; }
__attribute__((noinline)) int f116(int x) { if (x & 16) return x + 116; return x - 116; }
__attribute__((noinline)) int f117(int x) { if (x & 32) return x + 117; return x - 117; }
__attribute__((noinline)) int f118(int x) { if (x & 64) return x + 118; return x - 118; }
__attribute__((noinline)) int f119(int x) { if (x & 1) return x + 119; return x - 119; }
static __attribute__((noinline)) int f120(int x) { if (x & 2) return x + 120; return x - 120; }
__attribute__((noinline)) int f121(int x) { if (x & 4) return x + 121; return x - 121; }
__attribute__((noinline)) int f122(int x) { if (x & 8) return x + 122; return x - 122; }
__attribute__((noinline)) int f123(int x) { if (x & 16) return x + 123; return x - 123; }
__attribute__((noinline)) int f124(int x) { if (x & 32) return x + 124; return x - 124; }
static __attribute__((noinline)) int f125(int x) { if (x & 64) return x + 125; return x - 125; }
__attribute__((noinline)) int f126(int x) { if (x & 1) return x + 126; return x - 126; }
__attribute__((noinline)) int f127(int x) { if (x & 2) return x + 127; return x - 127; }
__attribute__((noinline)) int f128(int x) { if (x & 4) return x + 128; return x - 128; }
__attribute__((noinline)) int f129(int x) { if (x & 8) return x + 129; return x - 129; }
static __attribute__((noinline)) int f130(int x) { if (x & 16) return x + 130; return x - 130; }
__attribute__((noinline)) int f131(int x) { if (x & 32) return x + 131; return x - 131; }
__attribute__((noinline)) int f132(int x) { if (x & 64) return x + 132; return x - 132; }
__attribute__((noinline)) int f133(int x) { if (x & 1) return x + 133; return x - 133; }
__attribute__((noinline)) int f134(int x) { if (x & 2) return x + 134; return x - 134; }
static __attribute__((noinline)) int f135(int x) { if (x & 4) return x + 135; return x - 135; }
__attribute__((noinline)) int f136(int x) { if (x & 8) return x + 136; return x - 136; }
__attribute__((noinline)) int f137(int x) { if (x & 16) return x + 137; return x - 137; }
__attribute__((noinline)) int f138(int x) { if (x & 32) return x + 138; return x - 138; }
__attribute__((noinline)) int f139(int x) { if (x & 64) return x + 139; return x - 139; }
static __attribute__((noinline)) int f140(int x) { if (x & 1) return x + 140; return x - 140; }
__attribute__((noinline)) int f141(int x) { if (x & 2) return x + 141; return x - 141; }
__attribute__((noinline)) int f142(int x) { if (x & 4) return x + 142; return x - 142; }
__attribute__((noinline)) int f143(int x) { if (x & 8) return x + 143; return x - 143; }
__attribute__((noinline)) int f144(int x) { if (x & 16) return x + 144; return x - 144; }
static __attribute__((noinline)) int f145(int x) { if (x & 32) return x + 145; return x - 145; }
__attribute__((noinline)) int f146(int x) { if (x & 64) return x + 146; return x - 146; }
__attribute__((noinline)) int f147(int x) { if (x & 1) return x + 147; return x - 147; }
__attribute__((noinline)) int f148(int x) { if (x & 2) return x + 148; return x - 148; }
__attribute__((noinline)) int f149(int x) { if (x & 4) return x + 149; return x - 149; }
static __attribute__((noinline)) int f150(int x) { if (x & 8) return x + 150; return x - 150; }
__attribute__((noinline)) int f151(int x) { if (x & 16) return x + 151; return x - 151; }
__attribute__((noinline)) int f152(int x) { if (x & 32) return x + 152; return x - 152; }
__attribute__((noinline)) int f153(int x) { if (x & 64) return x + 153; return x - 153; }
__attribute__((noinline)) int f154(int x) { if (x & 1) return x + 154; return x - 154; }
static __attribute__((noinline)) int f155(int x) { if (x & 2) return x + 155; return x - 155; }
__attribute__((noinline)) int f156(int x) { if (x & 4) return x + 156; return x - 156; }
__attribute__((noinline)) int f157(int x) { if (x & 8) return x + 157; return x - 157; }
__attribute__((noinline)) int f158(int x) { if (x & 16) return x + 158; return x - 158; }
__attribute__((noinline)) int f159(int x) { if (x & 32) return x + 159; return x - 159; }
static __attribute__((noinline)) int f160(int x) { if (x & 64) return x + 160; return x - 160; }
__attribute__((noinline)) int f161(int x) { if (x & 1) return x + 161; return x - 161; }
__attribute__((noinline)) int f162(int x) { if (x & 2) return x + 162; return x - 162; }
__attribute__((noinline)) int f163(int x) { if (x & 4) return x + 163; return x - 163; }
__attribute__((noinline)) int f164(int x) { if (x & 8) return x + 164; return x - 164; }
static __attribute__((noinline)) int f165(int x) { if (x & 16) return x + 165; return x - 165; }
__attribute__((noinline)) int f166(int x) { if (x & 32) return x + 166; return x - 166; }
__attribute__((noinline)) int f167(int x) { if (x & 64) return x + 167; return x - 167; }
__attribute__((noinline)) int f168(int x) { if (x & 1) return x + 168; return x - 168; }
__attribute__((noinline)) int f169(int x) { if (x & 2) return x + 169; return x - 169; }
static __attribute__((noinline)) int f170(int x) { if (x & 4) return x + 170; return x - 170; }
__attribute__((noinline)) int f171(int x) { if (x & 8) return x + 171; return x - 171; }
__attribute__((noinline)) int f172(int x) { if (x & 16) return x + 172; return x - 172; }
__attribute__((noinline)) int f173(int x) { if (x & 32) return x + 173; return x - 173; }
__attribute__((noinline)) int f174(int x) { if (x & 64) return x + 174; return x - 174; }
static __attribute__((noinline)) int f175(int x) { if (x & 1) return x + 175; return x - 175; }
__attribute__((noinline)) int f176(int x) { if (x & 2) return x + 176; return x - 176; }
__attribute__((noinline)) int f177(int x) { if (x & 4) return x + 177; return x - 177; }
__attribute__((noinline)) int f178(int x) { if (x & 8) return x + 178; return x - 178; }
__attribute__((noinline)) int f179(int x) { if (x & 16) return x + 179; return x - 179; }
static __attribute__((noinline)) int f180(int x) { if (x & 32) return x + 180; return x - 180; }
__attribute__((noinline)) int f181(int x) { if (x & 64) return x + 181; return x - 181; }
__attribute__((noinline)) int f182(int x) { if (x & 1) return x + 182; return x - 182; }
__attribute__((noinline)) int f183(int x) { if (x & 2) return x + 183; return x - 183; }
__attribute__((noinline)) int f184(int x) { if (x & 4) return x + 184; return x - 184; }
static __attribute__((noinline)) int f185(int x) { if (x & 8) return x + 185; return x - 185; }
__attribute__((noinline)) int f186(int x) { if (x & 16) return x + 186; return x - 186; }
__attribute__((noinline)) int f187(int x) { if (x & 32) return x + 187; return x - 187; }
__attribute__((noinline)) int f188(int x) { if (x & 64) return x + 188; return x - 188; }
__attribute__((noinline)) int f189(int x) { if (x & 1) return x + 189; return x - 189; }
static __attribute__((noinline)) int f190(int x) { if (x & 2) return x + 190; return x - 190; }
__attribute__((noinline)) int f191(int x) { if (x & 4) return x + 191; return x - 191; }
__attribute__((noinline)) int f192(int x) { if (x & 8) return x + 192; return x - 192; }
__attribute__((noinline)) int f193(int x) { if (x & 16) return x + 193; return x - 193; }
__attribute__((noinline)) int f194(int x) { if (x & 32) return x + 194; return x - 194; }
static __attribute__((noinline)) int f195(int x) { if (x & 64) return x + 195; return x - 195; }
__attribute__((noinline)) int f196(int x) { if (x & 1) return x + 196; return x - 196; }
__attribute__((noinline)) int f197(int x) { if (x & 2) return x + 197; return x - 197; }
__attribute__((noinline)) int f198(int x) { if (x & 4) return x + 198; return x - 198; }
__attribute__((noinline)) int f199(int x) { if (x & 8) return x + 199; return x - 199; }
static __attribute__((noinline)) int f200(int x) { if (x & 16) return x + 200; return x - 200; }
__attribute__((noinline)) int f201(int x) { if (x & 32) return x + 201; return x - 201; }
__attribute__((noinline)) int f202(int x) { if (x & 64) return x + 202; return x - 202; }
__attribute__((noinline)) int f203(int x) { if (x & 1) return x + 203; return x - 203; }
__attribute__((noinline)) int f204(int x) { if (x & 2) return x + 204; return x - 204; }
static __attribute__((noinline)) int f205(int x) { if (x & 4) return x + 205; return x - 205; }
__attribute__((noinline)) int f206(int x) { if (x & 8) return x + 206; return x - 206; }
__attribute__((noinline)) int f207(int x) { if (x & 16) return x + 207; return x - 207; }
__attribute__((noinline)) int f208(int x) { if (x & 32) return x + 208; return x - 208; }
__attribute__((noinline)) int f209(int x) { if (x & 64) return x + 209; return x - 209; }
static __attribute__((noinline)) int f210(int x) { if (x & 1) return x + 210; return x - 210; }
__attribute__((noinline)) int f211(int x) { if (x & 2) return x + 211; return x - 211; }
__attribute__((noinline)) int f212(int x) { if (x & 4) return x + 212; return x - 212; }
__attribute__((noinline)) int f213(int x) { if (x & 8) return x + 213; return x - 213; }
__attribute__((noinline)) int f214(int x) { if (x & 16) return x + 214; return x - 214; }
static __attribute__((noinline)) int f215(int x) { if (x & 32) return x + 215; return x - 215; }
__attribute__((noinline)) int f216(int x) { if (x & 64) return x + 216; return x - 216; }
__attribute__((noinline)) int f217(int x) { if (x & 1) return x + 217; return x - 217; }
__attribute__((noinline)) int f218(int x) { if (x & 2) return x + 218; return x - 218; }
__attribute__((noinline)) int f219(int x) { if (x & 4) return x + 219; return x - 219; }
static __attribute__((noinline)) int f220(int x) { if (x & 8) return x + 220; return x - 220; }
__attribute__((noinline)) int f221(int x) { if (x & 16) return x + 221; return x - 221; }
__attribute__((noinline)) int f222(int x) { if (x & 32) return x + 222; return x - 222; }
__attribute__((noinline)) int f223(int x) { if (x & 64) return x + 223; return x - 223; }
__attribute__((noinline)) int f224(int x) { if (x & 1) return x + 224; return x - 224; }
static __attribute__((noinline)) int f225(int x) { if (x & 2) return x + 225; return x - 225; }
__attribute__((noinline)) int f226(int x) { if (x & 4) return x + 226; return x - 226; }
__attribute__((noinline)) int f227(int x) { if (x & 8) return x + 227; return x - 227; }
__attribute__((noinline)) int f228(int x) { if (x & 16) return x + 228; return x - 228; }
__attribute__((noinline)) int f229(int x) { if (x & 32) return x + 229; return x - 229; }
static __attribute__((noinline)) int f230(int x) { if (x & 64) return x + 230; return x - 230; }
__attribute__((noinline)) int f231(int x) { if (x & 1) return x + 231; return x - 231; }
__attribute__((noinline)) int f232(int x) { if (x & 2) return x + 232; return x - 232; }
__attribute__((noinline)) int f233(int x) { if (x & 4) return x + 233; return x - 233; }
__attribute__((noinline)) int f234(int x) { if (x & 8) return x + 234; return x - 234; }
static __attribute__((noinline)) int f235(int x) { if (x & 16) return x + 235; return x - 235; }
__attribute__((noinline)) int f236(int x) { if (x & 32) return x + 236; return x - 236; }
__attribute__((noinline)) int f237(int x) { if (x & 64) return x + 237; return x - 237; }
__attribute__((noinline)) int f238(int x) { if (x & 1) return x + 238; return x - 238; }
__attribute__((noinline)) int f239(int x) { if (x & 2) return x + 239; return x - 239; }
static __attribute__((noinline)) int f240(int x) { if (x & 4) return x + 240; return x - 240; }
__attribute__((noinline)) int f241(int x) { if (x & 8) return x + 241; return x - 241; }
__attribute__((noinline)) int f242(int x) { if (x & 16) return x + 242; return x - 242; }
__attribute__((noinline)) int f243(int x) { if (x & 32) return x + 243; return x - 243; }
__attribute__((noinline)) int f244(int x) { if (x & 64) return x + 244; return x - 244; }
static __attribute__((noinline)) int f245(int x) { if (x & 1) return x + 245; return x - 245; }
__attribute__((noinline)) int f246(int x) { if (x & 2) return x + 246; return x - 246; }
__attribute__((noinline)) int f247(int x) { if (x & 4) return x + 247; return x - 247; }
__attribute__((noinline)) int f248(int x) { if (x & 8) return x + 248; return x - 248; }
__attribute__((noinline)) int f249(int x) { if (x & 16) return x + 249; return x - 249; }
static __attribute__((noinline)) int f250(int x) { if (x & 32) return x + 250; return x - 250; }
__attribute__((noinline)) int f251(int x) { if (x & 64) return x + 251; return x - 251; }
__attribute__((noinline)) int f252(int x) { if (x & 1) return x + 252; return x - 252; }
__attribute__((noinline)) int f253(int x) { if (x & 2) return x + 253; return x - 253; }
__attribute__((noinline)) int f254(int x) { if (x & 4) return x + 254; return x - 254; }
static __attribute__((noinline)) int f255(int x) { if (x & 8) return x + 255; return x - 255; }
__attribute__((noinline)) int f256(int x) { if (x & 16) return x + 256; return x - 256; }
__attribute__((noinline)) int f257(int x) { if (x & 32) return x + 257; return x - 257; }
__attribute__((noinline)) int f258(int x) { if (x & 64) return x + 258; return x - 258; }
__attribute__((noinline)) int f259(int x) { if (x & 1) return x + 259; return x - 259; }
static __attribute__((noinline)) int f260(int x) { if (x & 2) return x + 260; return x - 260; }
__attribute__((noinline)) int f261(int x) { if (x & 4) return x + 261; return x - 261; }
__attribute__((noinline)) int f262(int x) { if (x & 8) return x + 262; return x - 262; }
__attribute__((noinline)) int f263(int x) { if (x & 16) return x + 263; return x - 263; }
__attribute__((noinline)) int f264(int x) { if (x & 32) return x + 264; return x - 264; }
static __attribute__((noinline)) int f265(int x) { if (x & 64) return x + 265; return x - 265; }
__attribute__((noinline)) int f266(int x) { if (x & 1) return x + 266; return x - 266; }
__attribute__((noinline)) int f267(int x) { if (x & 2) return x + 267; return x - 267; }
__attribute__((noinline)) int f268(int x) { if (x & 4) return x + 268; return x - 268; }
__attribute__((noinline)) int f269(int x) { if (x & 8) return x + 269; return x - 269; }
static __attribute__((noinline)) int f270(int x) { if (x & 16) return x + 270; return x - 270; }
__attribute__((noinline)) int f271(int x) { if (x & 32) return x + 271; return x - 271; }
__attribute__((noinline)) int f272(int x) { if (x & 64) return x + 272; return x - 272; }
__attribute__((noinline)) int f273(int x) { if (x & 1) return x + 273; return x - 273; }
__attribute__((noinline)) int f274(int x) { if (x & 2) return x + 274; return x - 274; }
static __attribute__((noinline)) int f275(int x) { if (x & 4) return x + 275; return x - 275; }
__attribute__((noinline)) int f276(int x) { if (x & 8) return x + 276; return x - 276; }
__attribute__((noinline)) int f277(int x) { if (x & 16) return x + 277; return x - 277; }
__attribute__((noinline)) int f278(int x) { if (x & 32) return x + 278; return x - 278; }
__attribute__((noinline)) int f279(int x) { if (x & 64) return x + 279; return x - 279; }
static __attribute__((noinline)) int f280(int x) { if (x & 1) return x + 280; return x - 280; }
__attribute__((noinline)) int f281(int x) { if (x & 2) return x + 281; return x - 281; }
__attribute__((noinline)) int f282(int x) { if (x & 4) return x + 282; return x - 282; }
__attribute__((noinline)) int f283(int x) { if (x & 8) return x + 283; return x - 283; }
__attribute__((noinline)) int f284(int x) { if (x & 16) return x + 284; return x - 284; }
static __attribute__((noinline)) int f285(int x) { if (x & 32) return x + 285; return x - 285; }
__attribute__((noinline)) int f286(int x) { if (x & 64) return x + 286; return x - 286; }
__attribute__((noinline)) int f287(int x) { if (x & 1) return x + 287; return x - 287; }
__attribute__((noinline)) int f288(int x) { if (x & 2) return x + 288; return x - 288; }
__attribute__((noinline)) int f289(int x) { if (x & 4) return x + 289; return x - 289; }
static __attribute__((noinline)) int f290(int x) { if (x & 8) return x + 290; return x - 290; }
__attribute__((noinline)) int f291(int x) { if (x & 16) return x + 291; return x - 291; }
__attribute__((noinline)) int f292(int x) { if (x & 32) return x + 292; return x - 292; }
__attribute__((noinline)) int f293(int x) { if (x & 64) return x + 293; return x - 293; }
__attribute__((noinline)) int f294(int x) { if (x & 1) return x + 294; return x - 294; }
static __attribute__((noinline)) int f295(int x) { if (x & 2) return x + 295; return x - 295; }
__attribute__((noinline)) int f296(int x) { if (x & 4) return x + 296; return x - 296; }
__attribute__((noinline)) int f297(int x) { if (x & 8) return x + 297; return x - 297; }
__attribute__((noinline)) int f298(int x) { if (x & 16) return x + 298; return x - 298; }
__attribute__((noinline)) int f299(int x) { if (x & 32) return x + 299; return x - 299; }
int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 3; long s = 0;
  for (int j = 0; j < n * 0; j++) s += f0(j);
  for (int j = 0; j < n * 1; j++) s += f1(j);
  for (int j = 0; j < n * 2; j++) s += f2(j);
  for (int j = 0; j < n * 3; j++) s += f3(j);
  for (int j = 0; j < n * 4; j++) s += f4(j);
  for (int j = 0; j < n * 5; j++) s += f5(j);
  for (int j = 0; j < n * 6; j++) s += f6(j);
  for (int j = 0; j < n * 7; j++) s += f7(j);
  for (int j = 0; j < n * 8; j++) s += f8(j);
  for (int j = 0; j < n * 9; j++) s += f9(j);
  for (int j = 0; j < n * 10; j++) s += f10(j);
  for (int j = 0; j < n * 11; j++) s += f11(j);
  for (int j = 0; j < n * 12; j++) s += f12(j);
  for (int j = 0; j < n * 0; j++) s += f13(j);
  for (int j = 0; j < n * 1; j++) s += f14(j);
  for (int j = 0; j < n * 2; j++) s += f15(j);
  for (int j = 0; j < n * 3; j++) s += f16(j);
  for (int j = 0; j < n * 4; j++) s += f17(j);
  for (int j = 0; j < n * 5; j++) s += f18(j);
  for (int j = 0; j < n * 6; j++) s += f19(j);
  for (int j = 0; j < n * 7; j++) s += f20(j);
  for (int j = 0; j < n * 8; j++) s += f21(j);
  for (int j = 0; j < n * 9; j++) s += f22(j);
  for (int j = 0; j < n * 10; j++) s += f23(j);
  for (int j = 0; j < n * 11; j++) s += f24(j);
  for (int j = 0; j < n * 12; j++) s += f25(j);
  for (int j = 0; j < n * 0; j++) s += f26(j);
  for (int j = 0; j < n * 1; j++) s += f27(j);
  for (int j = 0; j < n * 2; j++) s += f28(j);
  for (int j = 0; j < n * 3; j++) s += f29(j);
  for (int j = 0; j < n * 4; j++) s += f30(j);
  for (int j = 0; j < n * 5; j++) s += f31(j);
  for (int j = 0; j < n * 6; j++) s += f32(j);
  for (int j = 0; j < n * 7; j++) s += f33(j);
  for (int j = 0; j < n * 8; j++) s += f34(j);
  for (int j = 0; j < n * 9; j++) s += f35(j);
  for (int j = 0; j < n * 10; j++) s += f36(j);
  for (int j = 0; j < n * 11; j++) s += f37(j);
  for (int j = 0; j < n * 12; j++) s += f38(j);
  for (int j = 0; j < n * 0; j++) s += f39(j);
  for (int j = 0; j < n * 1; j++) s += f40(j);
  for (int j = 0; j < n * 2; j++) s += f41(j);
  for (int j = 0; j < n * 3; j++) s += f42(j);
  for (int j = 0; j < n * 4; j++) s += f43(j);
  for (int j = 0; j < n * 5; j++) s += f44(j);
  for (int j = 0; j < n * 6; j++) s += f45(j);
  for (int j = 0; j < n * 7; j++) s += f46(j);
  for (int j = 0; j < n * 8; j++) s += f47(j);
  for (int j = 0; j < n * 9; j++) s += f48(j);
  for (int j = 0; j < n * 10; j++) s += f49(j);
  for (int j = 0; j < n * 11; j++) s += f50(j);
  for (int j = 0; j < n * 12; j++) s += f51(j);
  for (int j = 0; j < n * 0; j++) s += f52(j);
  for (int j = 0; j < n * 1; j++) s += f53(j);
  for (int j = 0; j < n * 2; j++) s += f54(j);
  for (int j = 0; j < n * 3; j++) s += f55(j);
  for (int j = 0; j < n * 4; j++) s += f56(j);
  for (int j = 0; j < n * 5; j++) s += f57(j);
  for (int j = 0; j < n * 6; j++) s += f58(j);
  for (int j = 0; j < n * 7; j++) s += f59(j);
  for (int j = 0; j < n * 8; j++) s += f60(j);
  for (int j = 0; j < n * 9; j++) s += f61(j);
  for (int j = 0; j < n * 10; j++) s += f62(j);
  for (int j = 0; j < n * 11; j++) s += f63(j);
  for (int j = 0; j < n * 12; j++) s += f64(j);
  for (int j = 0; j < n * 0; j++) s += f65(j);
  for (int j = 0; j < n * 1; j++) s += f66(j);
  for (int j = 0; j < n * 2; j++) s += f67(j);
  for (int j = 0; j < n * 3; j++) s += f68(j);
  for (int j = 0; j < n * 4; j++) s += f69(j);
  for (int j = 0; j < n * 5; j++) s += f70(j);
  for (int j = 0; j < n * 6; j++) s += f71(j);
  for (int j = 0; j < n * 7; j++) s += f72(j);
  for (int j = 0; j < n * 8; j++) s += f73(j);
  for (int j = 0; j < n * 9; j++) s += f74(j);
  for (int j = 0; j < n * 10; j++) s += f75(j);
  for (int j = 0; j < n * 11; j++) s += f76(j);
  for (int j = 0; j < n * 12; j++) s += f77(j);
  for (int j = 0; j < n * 0; j++) s += f78(j);
  for (int j = 0; j < n * 1; j++) s += f79(j);
  for (int j = 0; j < n * 2; j++) s += f80(j);
  for (int j = 0; j < n * 3; j++) s += f81(j);
  for (int j = 0; j < n * 4; j++) s += f82(j);
  for (int j = 0; j < n * 5; j++) s += f83(j);
  for (int j = 0; j < n * 6; j++) s += f84(j);
  for (int j = 0; j < n * 7; j++) s += f85(j);
  for (int j = 0; j < n * 8; j++) s += f86(j);
  for (int j = 0; j < n * 9; j++) s += f87(j);
  for (int j = 0; j < n * 10; j++) s += f88(j);
  for (int j = 0; j < n * 11; j++) s += f89(j);
  for (int j = 0; j < n * 12; j++) s += f90(j);
  for (int j = 0; j < n * 0; j++) s += f91(j);
  for (int j = 0; j < n * 1; j++) s += f92(j);
  for (int j = 0; j < n * 2; j++) s += f93(j);
  for (int j = 0; j < n * 3; j++) s += f94(j);
  for (int j = 0; j < n * 4; j++) s += f95(j);
  for (int j = 0; j < n * 5; j++) s += f96(j);
  for (int j = 0; j < n * 6; j++) s += f97(j);
  for (int j = 0; j < n * 7; j++) s += f98(j);
  for (int j = 0; j < n * 8; j++) s += f99(j);
  for (int j = 0; j < n * 9; j++) s += f100(j);
  for (int j = 0; j < n * 10; j++) s += f101(j);
  for (int j = 0; j < n * 11; j++) s += f102(j);
  for (int j = 0; j < n * 12; j++) s += f103(j);
  for (int j = 0; j < n * 0; j++) s += f104(j);
  for (int j = 0; j < n * 1; j++) s += f105(j);
  for (int j = 0; j < n * 2; j++) s += f106(j);
  for (int j = 0; j < n * 3; j++) s += f107(j);
  for (int j = 0; j < n * 4; j++) s += f108(j);
  for (int j = 0; j < n * 5; j++) s += f109(j);
  for (int j = 0; j < n * 6; j++) s += f110(j);
  for (int j = 0; j < n * 7; j++) s += f111(j);
  for (int j = 0; j < n * 8; j++) s += f112(j);
  for (int j = 0; j < n * 9; j++) s += f113(j);
  for (int j = 0; j < n * 10; j++) s += f114(j);
  for (int j = 0; j < n * 11; j++) s += f115(j);
  for (int j = 0; j < n * 12; j++) s += f116(j);
  for (int j = 0; j < n * 0; j++) s += f117(j);
  for (int j = 0; j < n * 1; j++) s += f118(j);
  for (int j = 0; j < n * 2; j++) s += f119(j);
  for (int j = 0; j < n * 3; j++) s += f120(j);
  for (int j = 0; j < n * 4; j++) s += f121(j);
  for (int j = 0; j < n * 5; j++) s += f122(j);
  for (int j = 0; j < n * 6; j++) s += f123(j);
  for (int j = 0; j < n * 7; j++) s += f124(j);
  for (int j = 0; j < n * 8; j++) s += f125(j);
  for (int j = 0; j < n * 9; j++) s += f126(j);
  for (int j = 0; j < n * 10; j++) s += f127(j);
  for (int j = 0; j < n * 11; j++) s += f128(j);
  for (int j = 0; j < n * 12; j++) s += f129(j);
  for (int j = 0; j < n * 0; j++) s += f130(j);
  for (int j = 0; j < n * 1; j++) s += f131(j);
  for (int j = 0; j < n * 2; j++) s += f132(j);
  for (int j = 0; j < n * 3; j++) s += f133(j);
  for (int j = 0; j < n * 4; j++) s += f134(j);
  for (int j = 0; j < n * 5; j++) s += f135(j);
  for (int j = 0; j < n * 6; j++) s += f136(j);
  for (int j = 0; j < n * 7; j++) s += f137(j);
  for (int j = 0; j < n * 8; j++) s += f138(j);
  for (int j = 0; j < n * 9; j++) s += f139(j);
  for (int j = 0; j < n * 10; j++) s += f140(j);
  for (int j = 0; j < n * 11; j++) s += f141(j);
  for (int j = 0; j < n * 12; j++) s += f142(j);
  for (int j = 0; j < n * 0; j++) s += f143(j);
  for (int j = 0; j < n * 1; j++) s += f144(j);
  for (int j = 0; j < n * 2; j++) s += f145(j);
  for (int j = 0; j < n * 3; j++) s += f146(j);
  for (int j = 0; j < n * 4; j++) s += f147(j);
  for (int j = 0; j < n * 5; j++) s += f148(j);
  for (int j = 0; j < n * 6; j++) s += f149(j);
  for (int j = 0; j < n * 7; j++) s += f150(j);
  for (int j = 0; j < n * 8; j++) s += f151(j);
  for (int j = 0; j < n * 9; j++) s += f152(j);
  for (int j = 0; j < n * 10; j++) s += f153(j);
  for (int j = 0; j < n * 11; j++) s += f154(j);
  for (int j = 0; j < n * 12; j++) s += f155(j);
  for (int j = 0; j < n * 0; j++) s += f156(j);
  for (int j = 0; j < n * 1; j++) s += f157(j);
  for (int j = 0; j < n * 2; j++) s += f158(j);
  for (int j = 0; j < n * 3; j++) s += f159(j);
  for (int j = 0; j < n * 4; j++) s += f160(j);
  for (int j = 0; j < n * 5; j++) s += f161(j);
  for (int j = 0; j < n * 6; j++) s += f162(j);
  for (int j = 0; j < n * 7; j++) s += f163(j);
  for (int j = 0; j < n * 8; j++) s += f164(j);
  for (int j = 0; j < n * 9; j++) s += f165(j);
  for (int j = 0; j < n * 10; j++) s += f166(j);
  for (int j = 0; j < n * 11; j++) s += f167(j);
  for (int j = 0; j < n * 12; j++) s += f168(j);
  for (int j = 0; j < n * 0; j++) s += f169(j);
  for (int j = 0; j < n * 1; j++) s += f170(j);
  for (int j = 0; j < n * 2; j++) s += f171(j);
  for (int j = 0; j < n * 3; j++) s += f172(j);
  for (int j = 0; j < n * 4; j++) s += f173(j);
  for (int j = 0; j < n * 5; j++) s += f174(j);
  for (int j = 0; j < n * 6; j++) s += f175(j);
  for (int j = 0; j < n * 7; j++) s += f176(j);
  for (int j = 0; j < n * 8; j++) s += f177(j);
  for (int j = 0; j < n * 9; j++) s += f178(j);
  for (int j = 0; j < n * 10; j++) s += f179(j);
  for (int j = 0; j < n * 11; j++) s += f180(j);
  for (int j = 0; j < n * 12; j++) s += f181(j);
  for (int j = 0; j < n * 0; j++) s += f182(j);
  for (int j = 0; j < n * 1; j++) s += f183(j);
  for (int j = 0; j < n * 2; j++) s += f184(j);
  for (int j = 0; j < n * 3; j++) s += f185(j);
  for (int j = 0; j < n * 4; j++) s += f186(j);
  for (int j = 0; j < n * 5; j++) s += f187(j);
  for (int j = 0; j < n * 6; j++) s += f188(j);
  for (int j = 0; j < n * 7; j++) s += f189(j);
  for (int j = 0; j < n * 8; j++) s += f190(j);
  for (int j = 0; j < n * 9; j++) s += f191(j);
  for (int j = 0; j < n * 10; j++) s += f192(j);
  for (int j = 0; j < n * 11; j++) s += f193(j);
  for (int j = 0; j < n * 12; j++) s += f194(j);
  for (int j = 0; j < n * 0; j++) s += f195(j);
  for (int j = 0; j < n * 1; j++) s += f196(j);
  for (int j = 0; j < n * 2; j++) s += f197(j);
  for (int j = 0; j < n * 3; j++) s += f198(j);
  for (int j = 0; j < n * 4; j++) s += f199(j);
  for (int j = 0; j < n * 5; j++) s += f200(j);
  for (int j = 0; j < n * 6; j++) s += f201(j);
  for (int j = 0; j < n * 7; j++) s += f202(j);
  for (int j = 0; j < n * 8; j++) s += f203(j);
  for (int j = 0; j < n * 9; j++) s += f204(j);
  for (int j = 0; j < n * 10; j++) s += f205(j);
  for (int j = 0; j < n * 11; j++) s += f206(j);
  for (int j = 0; j < n * 12; j++) s += f207(j);
  for (int j = 0; j < n * 0; j++) s += f208(j);
  for (int j = 0; j < n * 1; j++) s += f209(j);
  for (int j = 0; j < n * 2; j++) s += f210(j);
  for (int j = 0; j < n * 3; j++) s += f211(j);
  for (int j = 0; j < n * 4; j++) s += f212(j);
  for (int j = 0; j < n * 5; j++) s += f213(j);
  for (int j = 0; j < n * 6; j++) s += f214(j);
  for (int j = 0; j < n * 7; j++) s += f215(j);
  for (int j = 0; j < n * 8; j++) s += f216(j);
  for (int j = 0; j < n * 9; j++) s += f217(j);
  for (int j = 0; j < n * 10; j++) s += f218(j);
  for (int j = 0; j < n * 11; j++) s += f219(j);
  for (int j = 0; j < n * 12; j++) s += f220(j);
  for (int j = 0; j < n * 0; j++) s += f221(j);
  for (int j = 0; j < n * 1; j++) s += f222(j);
  for (int j = 0; j < n * 2; j++) s += f223(j);
  for (int j = 0; j < n * 3; j++) s += f224(j);
  for (int j = 0; j < n * 4; j++) s += f225(j);
  for (int j = 0; j < n * 5; j++) s += f226(j);
  for (int j = 0; j < n * 6; j++) s += f227(j);
  for (int j = 0; j < n * 7; j++) s += f228(j);
  for (int j = 0; j < n * 8; j++) s += f229(j);
  for (int j = 0; j < n * 9; j++) s += f230(j);
  for (int j = 0; j < n * 10; j++) s += f231(j);
  for (int j = 0; j < n * 11; j++) s += f232(j);
  for (int j = 0; j < n * 12; j++) s += f233(j);
  for (int j = 0; j < n * 0; j++) s += f234(j);
  for (int j = 0; j < n * 1; j++) s += f235(j);
  for (int j = 0; j < n * 2; j++) s += f236(j);
  for (int j = 0; j < n * 3; j++) s += f237(j);
  for (int j = 0; j < n * 4; j++) s += f238(j);
  for (int j = 0; j < n * 5; j++) s += f239(j);
  for (int j = 0; j < n * 6; j++) s += f240(j);
  for (int j = 0; j < n * 7; j++) s += f241(j);
  for (int j = 0; j < n * 8; j++) s += f242(j);
  for (int j = 0; j < n * 9; j++) s += f243(j);
  for (int j = 0; j < n * 10; j++) s += f244(j);
  for (int j = 0; j < n * 11; j++) s += f245(j);
  for (int j = 0; j < n * 12; j++) s += f246(j);
  for (int j = 0; j < n * 0; j++) s += f247(j);
  for (int j = 0; j < n * 1; j++) s += f248(j);
  for (int j = 0; j < n * 2; j++) s += f249(j);
  for (int j = 0; j < n * 3; j++) s += f250(j);
  for (int j = 0; j < n * 4; j++) s += f251(j);
  for (int j = 0; j < n * 5; j++) s += f252(j);
  for (int j = 0; j < n * 6; j++) s += f253(j);
  for (int j = 0; j < n * 7; j++) s += f254(j);
  for (int j = 0; j < n * 8; j++) s += f255(j);
  for (int j = 0; j < n * 9; j++) s += f256(j);
  for (int j = 0; j < n * 10; j++) s += f257(j);
  for (int j = 0; j < n * 11; j++) s += f258(j);
  for (int j = 0; j < n * 12; j++) s += f259(j);
  for (int j = 0; j < n * 0; j++) s += f260(j);
  for (int j = 0; j < n * 1; j++) s += f261(j);
  for (int j = 0; j < n * 2; j++) s += f262(j);
  for (int j = 0; j < n * 3; j++) s += f263(j);
  for (int j = 0; j < n * 4; j++) s += f264(j);
  for (int j = 0; j < n * 5; j++) s += f265(j);
  for (int j = 0; j < n * 6; j++) s += f266(j);
  for (int j = 0; j < n * 7; j++) s += f267(j);
  for (int j = 0; j < n * 8; j++) s += f268(j);
  for (int j = 0; j < n * 9; j++) s += f269(j);
  for (int j = 0; j < n * 10; j++) s += f270(j);
  for (int j = 0; j < n * 11; j++) s += f271(j);
  for (int j = 0; j < n * 12; j++) s += f272(j);
  for (int j = 0; j < n * 0; j++) s += f273(j);
  for (int j = 0; j < n * 1; j++) s += f274(j);
  for (int j = 0; j < n * 2; j++) s += f275(j);
  for (int j = 0; j < n * 3; j++) s += f276(j);
  for (int j = 0; j < n * 4; j++) s += f277(j);
  for (int j = 0; j < n * 5; j++) s += f278(j);
  for (int j = 0; j < n * 6; j++) s += f279(j);
  for (int j = 0; j < n * 7; j++) s += f280(j);
  for (int j = 0; j < n * 8; j++) s += f281(j);
  for (int j = 0; j < n * 9; j++) s += f282(j);
  for (int j = 0; j < n * 10; j++) s += f283(j);
  for (int j = 0; j < n * 11; j++) s += f284(j);
  for (int j = 0; j < n * 12; j++) s += f285(j);
  for (int j = 0; j < n * 0; j++) s += f286(j);
  for (int j = 0; j < n * 1; j++) s += f287(j);
  for (int j = 0; j < n * 2; j++) s += f288(j);
  for (int j = 0; j < n * 3; j++) s += f289(j);
  for (int j = 0; j < n * 4; j++) s += f290(j);
  for (int j = 0; j < n * 5; j++) s += f291(j);
  for (int j = 0; j < n * 6; j++) s += f292(j);
  for (int j = 0; j < n * 7; j++) s += f293(j);
  for (int j = 0; j < n * 8; j++) s += f294(j);
  for (int j = 0; j < n * 9; j++) s += f295(j);
  for (int j = 0; j < n * 10; j++) s += f296(j);
  for (int j = 0; j < n * 11; j++) s += f297(j);
  for (int j = 0; j < n * 12; j++) s += f298(j);
  for (int j = 0; j < n * 0; j++) s += f299(j);
  printf("%ld\n", s); return 0; }
