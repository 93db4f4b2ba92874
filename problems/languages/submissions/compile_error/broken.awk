{ print (1 + }
